import { Module, UseGuards, applyDecorators } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { RATE_LIMIT_WINDOW_MS } from '@app/domain';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { RateLimitGuard, requestLimit } from './rate-limit.guard';
import { SlidingWindowStorage } from './sliding-window.storage';

@Module({
  imports: [
    ThrottlerModule.forRoot({
      storage: new SlidingWindowStorage(),
      throttlers: [{ name: 'default', ttl: RATE_LIMIT_WINDOW_MS, limit: requestLimit }],
    }),
  ],
  providers: [RateLimitGuard],
  exports: [RateLimitGuard],
})
export class RateLimitModule {}

/** Every API-key route: authenticated first, then counted against the key's plan (CONTRACT "Rate limits"). */
export const ApiKeyRoute = () => applyDecorators(UseGuards(ApiKeyGuard, RateLimitGuard));
