import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { discardOldestDirtyBucket, discardOldestDirtyOverviewBucket, refreshDirtyModelStats, refreshDirtyOverviewStats } from '@app/projections';
import { PeriodicRound } from '../../infrastructure/periodic-round';

/** How often dirty buckets are looked for; what a batch touched is counted within about this. */
const REFRESH_EVERY_MS = 1_000;
/** Buckets recounted per transaction. */
const BUCKETS_PER_REFRESH = 100;
/**
 * How old a mark must be before its bucket is recounted. A recount reads the whole bucket while
 * the batches writing into it wait, so a bucket that a backlog's drain marks in every batch was
 * recounted every second, at a cost growing with the bucket: the drain of 200,000 spans into one
 * hour ran at 10,600 spans/s with it and 15,800 without (docs/BENCHMARKS.md). A mark keeps its
 * first time, so stats still follow a batch within this plus `REFRESH_EVERY_MS`.
 */
const SETTLE_MS = 5_000;

/** One kind of stats bucket: how to recount some, and how to drop the oldest mark when it cannot be. */
interface StatsKind {
  name: string;
  refresh: (ds: DataSource, limit: number, minAgeMs: number) => Promise<number>;
  discardOldest: (ds: DataSource, minAgeMs: number) => Promise<unknown>;
}

const STATS_KINDS: readonly StatsKind[] = [
  { name: 'model stats', refresh: refreshDirtyModelStats, discardOldest: discardOldestDirtyBucket },
  { name: 'overview stats', refresh: refreshDirtyOverviewStats, discardOldest: discardOldestDirtyOverviewBucket },
];

/**
 * Keeps the stats read model (model_stats per hour, the overview's 5-minute stats) equal to a
 * recount of the spans, traces and scores: recounts the buckets the telemetry projection
 * marked. Every processor runs it; the marks are shared out (SKIP LOCKED). A bucket whose
 * recount keeps failing is logged and dropped, so it cannot hold the others back.
 */
@Injectable()
export class ModelStatsRefresher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rounds = new PeriodicRound(() => this.drainAll());

  constructor(
    private readonly ds: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.rounds.start(REFRESH_EVERY_MS);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  private async drainAll(): Promise<void> {
    for (const kind of STATS_KINDS) await this.drain(kind);
  }

  private async drain(kind: StatsKind): Promise<void> {
    try {
      while ((await kind.refresh(this.ds, BUCKETS_PER_REFRESH, SETTLE_MS)) === BUCKETS_PER_REFRESH);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, `${kind.name} recount failed; recounting one bucket at a time`);
      await this.isolateFailure(kind);
    }
  }

  private async isolateFailure(kind: StatsKind): Promise<void> {
    try {
      while ((await kind.refresh(this.ds, 1, SETTLE_MS)) === 1);
    } catch (err) {
      const bucket = await kind.discardOldest(this.ds, SETTLE_MS).catch(() => null);
      this.logger.error({ err: (err as Error).message, bucket }, `${kind.name} bucket cannot be recounted; left as it was`);
    }
  }
}
