import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { discardOldestDirtyBucket, refreshDirtyModelStats } from '@app/persistence';

/** How often dirty buckets are looked for; what a batch touched is counted within about this. */
const REFRESH_EVERY_MS = 1_000;
/** Buckets recounted per transaction. */
const BUCKETS_PER_REFRESH = 100;

/**
 * Keeps the model-stats read model equal to a recount of the spans and scores: recounts the
 * (project, model, hour) buckets the telemetry projection marked. Every processor runs it; the
 * marks are shared out (SKIP LOCKED). A bucket whose recount keeps failing is logged and dropped,
 * so it cannot hold the others back.
 */
@Injectable()
export class ModelStatsRefresher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly ds: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.drain().finally(() => (this.running = null));
    }, REFRESH_EVERY_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while ((await refreshDirtyModelStats(this.ds, BUCKETS_PER_REFRESH)) === BUCKETS_PER_REFRESH);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'model stats recount failed; recounting one bucket at a time');
      await this.isolateFailure();
    }
  }

  private async isolateFailure(): Promise<void> {
    try {
      while ((await refreshDirtyModelStats(this.ds, 1)) === 1);
    } catch (err) {
      const bucket = await discardOldestDirtyBucket(this.ds).catch(() => null);
      this.logger.error({ err: (err as Error).message, bucket }, 'model stats bucket cannot be recounted; left as it was');
    }
  }
}
