import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { RateLimitLeaseStore } from '@app/persistence';

const SWEEP_EVERY_MS = 60_000;

/**
 * Deletes the shared rate-limit rows of buckets idle for a minute, so the table follows the
 * active keys and client IPs. Every replica sweeps; a sweep another one just did finds nothing.
 */
@Injectable()
export class LeaseSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ds: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const store = new RateLimitLeaseStore(this.ds);
    this.timer = setInterval(() => {
      store
        .sweep(Date.now())
        .catch((err: Error) => this.logger.warn({ err: err.message }, 'rate-limit rows could not be swept; next try in a minute'));
    }, SWEEP_EVERY_MS);
    // Never what keeps a stopping API alive.
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
