import { DomainError, RATE_LIMIT_WINDOW_MS, RPC_LIMITS } from '@app/domain';
import { SlidingWindowStorage } from './sliding-window.storage';

/**
 * The dashboard RPC's protection against one session piling up reads whose cost it chooses
 * (issue 24): RPC_LIMITS.heavyCallsPerSecondPerSession over the same rolling window and
 * storage as the API keys' limits (SPEC 8.2), keyed by the session, not by an API key: the RPC
 * stays outside the per-key limits of CONTRACT "Rate limits". One process's memory, like them.
 */
export class RpcCallLimiter {
  constructor(
    private readonly storage = new SlidingWindowStorage(),
    private readonly limit: number = RPC_LIMITS.heavyCallsPerSecondPerSession,
  ) {}

  /** Counts one heavy call of the session, or refuses it with 429 and Retry-After. */
  async take(sessionId: string): Promise<void> {
    const record = await this.storage.increment(`rpc-session:${sessionId}`, RATE_LIMIT_WINDOW_MS, this.limit);
    if (record.isBlocked) {
      throw new DomainError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: at most ${this.limit} trace, list and stats reads per second per session, retry after 1 second`, {
        'Retry-After': '1',
      });
    }
  }
}
