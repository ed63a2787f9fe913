import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { foldFacts } from '@app/domain';
import { CONSUMERS, ChunkReader, NatsResources, type PullConsumerRunner, projectionRunner } from '@app/eventlog';
import { type NewRows, type PreparedTelemetry, type UsageCount, isReachable, prepareTelemetry, queueUsage, scheduleEvaluations, writePreparedTelemetry } from '@app/persistence';
import { type DecodedIngestMessage, decodeIngestMessage } from '@app/projections';

/**
 * Live projection of INGEST into traces, spans and scores: one transaction per fetched
 * batch, acked after commit. The merge rule makes it idempotent and order-insensitive, so
 * several processor instances share this durable consumer safely.
 */
@Injectable()
export class TelemetryProjection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private runner: PullConsumerRunner<DecodedIngestMessage, IngestBatch> | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    private readonly chunks: ChunkReader,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runner = projectionRunner<DecodedIngestMessage, IngestBatch>(this.nats, {
      stream: 'ingest',
      consumer: CONSUMERS.ingestProjector,
      logger: this.logger,
      decode: (msg) => decodeIngestMessage(msg, this.chunks),
      prepare: prepareBatch,
      apply: (batch) => this.apply(batch),
      isHealthy: () => isReachable(this.ds),
    });
    await this.runner.start();
    this.logger.info('telemetry projection running');
  }

  /** Before connections close: the batch in hand is committed and acked first. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }

  /**
   * Rows, the usage they create and the evaluations they call for commit together: a
   * redelivered message creates none of them again. Only here, in live mode: a rebuild
   * never counts usage or calls a webhook.
   */
  private async apply({ telemetry, orgOf, messages }: IngestBatch): Promise<void> {
    const usage = (metric: UsageCount['metric'], rows: NewRows[]): UsageCount[] =>
      rows.map((r) => ({ orgId: orgOf.get(r.projectId) as string, month: r.month, metric, n: r.n }));
    await this.ds.transaction(async (m) => {
      const { newTraces, newSpans } = await writePreparedTelemetry(m, telemetry);
      await queueUsage(m, [...usage('traces', newTraces), ...usage('spans', newSpans)]);
      await scheduleEvaluations(m, telemetry.facts.spans);
    });
    const { facts } = telemetry;
    this.logger.debug({ messages, traces: facts.traces.length, spans: facts.spans.length, scores: facts.scores.length }, 'batch projected');
  }
}

/** A fetched batch ready to write: folded and serialized while the previous batch commits. */
interface IngestBatch {
  telemetry: PreparedTelemetry;
  orgOf: Map<string, string>;
  messages: number;
}

async function prepareBatch(items: DecodedIngestMessage[]): Promise<IngestBatch> {
  return {
    telemetry: await prepareTelemetry(foldFacts(items.map((i) => i.facts))),
    orgOf: new Map(items.map((i) => [i.envelope.projectId, i.envelope.orgId])),
    messages: items.length,
  };
}
