import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { NatsResources } from '@app/eventlog';
import { projectionRecountedBuckets } from '@app/metrics';
import { type RecountPace, type RecountedBuckets, modelStatsProjection, telemetryLag } from '@app/projections';
import { PeriodicRound } from '../../infrastructure/periodic-round';
import { BACKLOG_MESSAGES, recountPaceOf } from './recount-pace';

/** How often dirty buckets are looked for; what a batch touched is counted within about this. */
const REFRESH_EVERY_MS = 1_000;
/** Buckets recounted per transaction. */
const BUCKETS_PER_REFRESH = 100;

/**
 * Keeps the stats read model (`modelStatsProjection`: model_stats per hour, the overview's
 * 5-minute stats) equal to a recount of the spans, traces and scores: recounts the buckets the
 * telemetry projection marked, each of the definition's kinds at its own pace. Every processor
 * runs it; the marks are shared out (SKIP LOCKED). A bucket whose recount keeps failing is logged
 * and dropped, so it cannot hold the others back. While the telemetry projection drains a
 * backlog, the marks wait longer (`recountPaceOf`): the rows are what a read waits for.
 */
@Injectable()
export class ModelStatsRefresher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rounds = new PeriodicRound(() => this.runRound());
  private readonly recounted = projectionRecountedBuckets.labels({ projection: modelStatsProjection.name });
  /** The telemetry projection's lag at the start of the round, which sets the pace. */
  private lag = 0;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.recounted.inc(0);
    this.rounds.start(REFRESH_EVERY_MS);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  /** One round: every kind's due marks recounted, at the pace the telemetry projection's lag sets. */
  async runRound(): Promise<void> {
    await this.readLag();
    for (const kind of modelStatsProjection.buckets) await this.drain(kind);
  }

  private async drain(kind: RecountedBuckets): Promise<void> {
    try {
      while ((await this.recount(kind, BUCKETS_PER_REFRESH)) === BUCKETS_PER_REFRESH);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, `${kind.name} recount failed; recounting one bucket at a time`);
      await this.isolateFailure(kind);
    }
  }

  /** The telemetry projection's lag, logged when it starts or stops holding the recounts back; unknown counts as none. */
  private async readLag(): Promise<void> {
    const lag = await telemetryLag(this.ds, this.nats).catch(() => 0);
    const backlogged = lag > BACKLOG_MESSAGES;
    if (backlogged !== this.lag > BACKLOG_MESSAGES)
      this.logger.info(
        { lag },
        backlogged ? 'stats recounts wait longer while the telemetry projection drains a backlog' : 'stats recounts back to their pace',
      );
    this.lag = lag;
  }

  private paceOf(kind: RecountedBuckets): RecountPace {
    return recountPaceOf(kind, this.lag);
  }

  private async recount(kind: RecountedBuckets, limit: number): Promise<number> {
    const n = await kind.recount(this.ds, limit, this.paceOf(kind));
    this.recounted.inc(n);
    return n;
  }

  private async isolateFailure(kind: RecountedBuckets): Promise<void> {
    try {
      while ((await this.recount(kind, 1)) === 1);
    } catch (err) {
      const bucket = await kind.discardOldest(this.ds, this.paceOf(kind)).catch(() => null);
      this.logger.error({ err: (err as Error).message, bucket }, `${kind.name} bucket cannot be recounted; left as it was`);
    }
  }
}
