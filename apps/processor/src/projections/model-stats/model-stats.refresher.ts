import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { type RecountPace, discardOldestDirtyBucket, discardOldestDirtyOverviewBucket, refreshDirtyModelStats, refreshDirtyOverviewStats } from '@app/projections';
import { PeriodicRound } from '../../infrastructure/periodic-round';

/** How often dirty buckets are looked for; what a batch touched is counted within about this. */
const REFRESH_EVERY_MS = 1_000;
/** Buckets recounted per transaction. */
const BUCKETS_PER_REFRESH = 100;
/** The least age of a mark before its bucket is recounted (a repeated mark keeps its first time). */
const SETTLE_MS = 5_000;

/** One kind of stats bucket: how to recount some, and how to drop the oldest mark when it cannot be. */
interface StatsKind {
  name: string;
  refresh: (ds: DataSource, limit: number, pace: RecountPace) => Promise<number>;
  discardOldest: (ds: DataSource, pace: RecountPace) => Promise<unknown>;
  /**
   * Ten times what a recount costs per row of its bucket (measured quiet: about 5 µs for the
   * hourly model stats, 10 µs for the overview's, which joins the traces), so recounting a bucket
   * that keeps growing takes about a tenth of the time: recounting it every second cost the drain
   * of 200,000 spans into one hour a third of its rate (docs/BENCHMARKS.md).
   */
  pace: RecountPace;
}

const STATS_KINDS: readonly StatsKind[] = [
  { name: 'model stats', refresh: refreshDirtyModelStats, discardOldest: discardOldestDirtyBucket, pace: { floorMs: SETTLE_MS, msPerRow: 0.05 } },
  { name: 'overview stats', refresh: refreshDirtyOverviewStats, discardOldest: discardOldestDirtyOverviewBucket, pace: { floorMs: SETTLE_MS, msPerRow: 0.1 } },
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
      while ((await kind.refresh(this.ds, BUCKETS_PER_REFRESH, kind.pace)) === BUCKETS_PER_REFRESH);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, `${kind.name} recount failed; recounting one bucket at a time`);
      await this.isolateFailure(kind);
    }
  }

  private async isolateFailure(kind: StatsKind): Promise<void> {
    try {
      while ((await kind.refresh(this.ds, 1, kind.pace)) === 1);
    } catch (err) {
      const bucket = await kind.discardOldest(this.ds, kind.pace).catch(() => null);
      this.logger.error({ err: (err as Error).message, bucket }, `${kind.name} bucket cannot be recounted; left as it was`);
    }
  }
}
