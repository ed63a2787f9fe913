import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { projectionRecountedBuckets } from '@app/metrics';
import { type RecountPace, type RecountedBuckets, modelStatsProjection } from '@app/projections';
import { PeriodicRound } from '../../infrastructure/periodic-round';

/** How often dirty buckets are looked for; what a batch touched is counted within about this. */
const REFRESH_EVERY_MS = 1_000;
/** Buckets recounted per transaction. */
const BUCKETS_PER_REFRESH = 100;
/** The least age of a mark before its bucket is recounted (a repeated mark keeps its first time). */
const SETTLE_MS = 5_000;

/**
 * A recount reads its whole bucket while the batches writing into it wait, and a backlog's drain
 * marks the same bucket in every batch: waiting ten times the recount's cost per row the bucket
 * counted makes recounting a growing bucket take about a tenth of the time (recounting it every
 * second cost the drain of 200,000 spans into one hour a third of its rate, docs/BENCHMARKS.md).
 */
const PACE_PER_COST = 10;

const paceOf = (kind: RecountedBuckets): RecountPace => ({ floorMs: SETTLE_MS, msPerRow: PACE_PER_COST * kind.msPerRow });

/**
 * Keeps the stats read model (`modelStatsProjection`: model_stats per hour, the overview's
 * 5-minute stats) equal to a recount of the spans, traces and scores: recounts the buckets the
 * telemetry projection marked, each of the definition's kinds at its own pace. Every processor
 * runs it; the marks are shared out (SKIP LOCKED). A bucket whose recount keeps failing is logged
 * and dropped, so it cannot hold the others back.
 */
@Injectable()
export class ModelStatsRefresher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rounds = new PeriodicRound(() => this.drainAll());
  private readonly recounted = projectionRecountedBuckets.labels({ projection: modelStatsProjection.name });

  constructor(
    private readonly ds: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.recounted.inc(0);
    this.rounds.start(REFRESH_EVERY_MS);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  private async drainAll(): Promise<void> {
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

  private async recount(kind: RecountedBuckets, limit: number): Promise<number> {
    const n = await kind.recount(this.ds, limit, paceOf(kind));
    this.recounted.inc(n);
    return n;
  }

  private async isolateFailure(kind: RecountedBuckets): Promise<void> {
    try {
      while ((await this.recount(kind, 1)) === 1);
    } catch (err) {
      const bucket = await kind.discardOldest(this.ds, paceOf(kind)).catch(() => null);
      this.logger.error({ err: (err as Error).message, bucket }, `${kind.name} bucket cannot be recounted; left as it was`);
    }
  }
}
