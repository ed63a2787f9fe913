import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import { ChunkReader, NatsResources, type PullConsumerRunner, consumerAckFloor } from '@app/eventlog';
import { projectionAppliedSpans } from '@app/metrics';
import { ProjectionCheckpoints, type ProjectionPosition } from '@app/persistence';
import {
  type DecodedIngestMessage,
  type TelemetryBatch,
  applyTelemetryBatch,
  checkWatermark,
  telemetryPosition,
  telemetryProjection,
} from '@app/projections';
import { type CountedBatch, liveRunner } from '../live-runner';

/**
 * A batch that removes something is applied with nothing beside it: a batch applied at the same
 * time would check the tombstones before the removal commits and write the rows back.
 */
const needsOrder = ({ telemetry: { facts } }: TelemetryBatch): boolean => facts.deletions.length > 0 || facts.scoreDeletions.length > 0;

/** How often the watermark is checked for removed sequences and lost messages. */
const WATERMARK_CHECK_MS = 1_000;

/**
 * Live mode of the telemetry projection (`telemetryProjection`, libs/projections): one
 * transaction per fetched batch with the live-only hooks, acked after commit, `applyLanes`
 * batches at a time (a removal alone). The merge rule makes it idempotent and order-insensitive, so
 * several processor instances share this durable consumer safely. Each transaction records
 * the sequences it applied: that, not the consumer's ack floor, is what reads wait for.
 */
@Injectable()
export class TelemetryProjection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private runner: PullConsumerRunner<DecodedIngestMessage, CountedBatch<TelemetryBatch>> | null = null;
  private position!: ProjectionPosition;
  private watermarkTimer: NodeJS.Timeout | null = null;
  private watermarkCheck: Promise<void> | null = null;
  private lastLostSeq = 0;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    private readonly chunks: ChunkReader,
    private readonly checkpoints: ProjectionCheckpoints,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.position = telemetryPosition(this.nats);
    projectionAppliedSpans.inc({ projection: this.position.projection }, 0);
    const { stream, consumer } = telemetryProjection.source;
    await this.checkpoints.init(this.position, await consumerAckFloor(this.nats, stream, consumer));
    this.runner = liveRunner(
      telemetryProjection,
      { ds: this.ds, nats: this.nats, chunks: this.chunks, logger: this.logger },
      {
        apply: (batch) => this.apply(batch),
        lanes: this.config.applyLanes,
        applyAlone: needsOrder,
        // A dead-lettered message is handled: reads stop waiting for it, `spanlog verify` reports its rows.
        onDeadLetter: (msg) =>
          this.ds.transaction((m) => new ProjectionCheckpoints(m).recordApplied(this.position, [msg.seq])).then(() => undefined),
      },
    );
    await this.runner.start();
    this.watermarkTimer = setInterval(() => {
      this.watermarkCheck ??= this.checkWatermark().finally(() => (this.watermarkCheck = null));
    }, WATERMARK_CHECK_MS);
    this.logger.info('telemetry projection running');
  }

  /** Before connections close: the batch in hand is committed and acked first. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.watermarkTimer) clearInterval(this.watermarkTimer);
    await this.watermarkCheck;
    await this.runner?.stop();
  }

  /** Live mode: the batch's evaluations are scheduled with its rows; a rebuild or a repair calls no webhook. */
  private async apply(batch: TelemetryBatch): Promise<void> {
    await applyTelemetryBatch(this.ds, this.position, batch, { scheduleEvaluations: true, countUsage: true });
    const { facts } = batch.telemetry;
    projectionAppliedSpans.inc({ projection: this.position.projection }, facts.spans.length);
    this.logger.debug(
      { messages: batch.seqs.length, traces: facts.traces.length, spans: facts.spans.length, scores: facts.scores.length },
      'batch projected',
    );
  }

  private async checkWatermark(): Promise<void> {
    try {
      const check = await checkWatermark(
        this.ds,
        this.nats,
        telemetryProjection.source.stream,
        telemetryProjection.source.consumer,
        this.position,
      );
      if (check.state === 'skipped')
        this.logger.info({ from: check.from, through: check.through }, 'watermark moved past sequences no longer stored');
      if (check.state === 'lost' && check.seq !== this.lastLostSeq) {
        this.lastLostSeq = check.seq;
        this.logger.error(
          { seq: check.seq, stream: this.position.stream },
          'a stored message was acknowledged without being applied; run spanlog verify --repair',
        );
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'watermark check failed; trying again');
    }
  }
}
