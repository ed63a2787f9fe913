import { DomainError, RATE_LIMIT_WINDOW_MS, RPC_LIMITS } from '@app/domain';
import { SlidingWindowStorage } from './sliding-window.storage';

/**
 * The dashboard RPC's protection against one session piling up reads whose cost it chooses
 * (issue 24): RPC_LIMITS.heavyCallsPerSecondPerSession over the same rolling window and
 * storage as the API keys' limits (SPEC 8.2), keyed by the session, not by an API key: the RPC
 * stays outside the per-key limits of CONTRACT "Rate limits". One process's memory: it guards
 * this replica's reads (docs/ARCHITECTURE.md "Replicas").
 */
export class RpcCallLimiter {
  constructor(
    private readonly storage = new SlidingWindowStorage(),
    private readonly limits: Record<RpcCallKind, number> = {
      heavy: RPC_LIMITS.heavyCallsPerSecondPerSession,
      wholeSpan: RPC_LIMITS.wholeSpansPerSecondPerSession,
    },
  ) {}

  /** Counts one call of the session in the bucket of its kind, or refuses it with 429 and Retry-After. */
  async take(sessionId: string, kind: RpcCallKind = 'heavy'): Promise<void> {
    const limit = this.limits[kind];
    const record = await this.storage.increment(`rpc-${kind}:${sessionId}`, RATE_LIMIT_WINDOW_MS, limit);
    if (record.isBlocked) {
      throw new DomainError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit exceeded: at most ${limit} ${WHAT[kind]} per second per session, retry after 1 second`,
        { 'Retry-After': '1' },
      );
    }
  }
}

/** The buckets: every heavy read, and reads of one span whole besides. */
export type RpcCallKind = 'heavy' | 'wholeSpan';
const WHAT: Record<RpcCallKind, string> = { heavy: 'trace, list and stats reads', wholeSpan: 'whole spans (trace.span)' };
