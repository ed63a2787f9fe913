import type { ThrottlerStorage } from '@nestjs/throttler';
import { windowNumberOf } from '@app/domain';
import type { SlidingWindowRecord, SlidingWindowStorage } from './sliding-window.storage';
import type { WindowLeases } from './window-leases';

/**
 * The API keys' limits held across API replicas (docs/ARCHITECTURE.md "Replicas"): a request
 * is accepted when this replica's rolling window has room (SlidingWindowStorage, which also
 * gives the headers) and a token of the fixed window is leased to it (WindowLeases). Alone,
 * a replica answers exactly as the rolling window does: what a rolling second of this
 * replica's acceptances allows, the fixed second inside it allows too.
 */
export class SharedWindowStorage implements ThrottlerStorage {
  constructor(
    private readonly local: SlidingWindowStorage,
    private readonly leases: WindowLeases,
    private readonly now: () => number = Date.now,
  ) {}

  async increment(key: string, ttlMs: number, limit: number): Promise<SlidingWindowRecord> {
    // Asked first, so a request this replica refuses anyway makes it lease nothing.
    const ahead = this.local.peek(key, ttlMs, limit);
    if (ahead.isBlocked) return ahead;
    if (!(await this.leases.take(key, limit))) return this.refusedUntilWindowEnds(limit, ttlMs);
    const record = await this.local.increment(key, ttlMs, limit);
    // Another request of the key filled the rolling window while this one waited for its lease.
    if (record.isBlocked) this.leases.giveBack(key);
    return record;
  }

  private refusedUntilWindowEnds(limit: number, windowMs: number): SlidingWindowRecord {
    const now = this.now();
    const resetAtMs = (windowNumberOf(now, windowMs) + 1) * windowMs;
    const secondsLeft = (resetAtMs - now) / 1_000;
    return { totalHits: limit + 1, timeToExpire: secondsLeft, isBlocked: true, timeToBlockExpire: secondsLeft, resetAtMs };
  }
}
