import { Module, UseGuards, applyDecorators } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { RATE_LIMIT_WINDOW_MS } from '@app/domain';
import { RateLimitLeaseStore } from '@app/persistence';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { RateLimitGuard, requestLimit } from './rate-limit.guard';
import { LeaseSweeper } from './lease-sweeper';
import { SharedWindowStorage } from './shared-window.storage';
import { SlidingWindowStorage } from './sliding-window.storage';
import { WindowLeases } from './window-leases';

/** A failing shared counter is logged at most this often: every request of a busy bucket would otherwise say it. */
const FAILURE_LOG_EVERY_MS = 10_000;

@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [DataSource, LOGGER],
      useFactory: (ds: DataSource, logger: Logger) => {
        let loggedAt = 0;
        const leases = new WindowLeases(new RateLimitLeaseStore(ds), RATE_LIMIT_WINDOW_MS, (err) => {
          if (Date.now() - loggedAt < FAILURE_LOG_EVERY_MS) return;
          loggedAt = Date.now();
          logger.warn(
            { err: err.message },
            'rate-limit counter shared by the API replicas unreachable; each replica limits on its own meanwhile',
          );
        });
        return {
          storage: new SharedWindowStorage(new SlidingWindowStorage(), leases),
          throttlers: [{ name: 'default', ttl: RATE_LIMIT_WINDOW_MS, limit: requestLimit }],
        };
      },
    }),
  ],
  providers: [RateLimitGuard, LeaseSweeper],
  exports: [RateLimitGuard],
})
export class RateLimitModule {}

/** Every API-key route: authenticated first, then counted against the key's plan (CONTRACT "Rate limits"). */
export const ApiKeyRoute = () => applyDecorators(UseGuards(ApiKeyGuard, RateLimitGuard));
