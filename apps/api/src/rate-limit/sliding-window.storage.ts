import type { ThrottlerStorage } from '@nestjs/throttler';
import { type RateDecision, SlidingWindowLog } from '@app/domain';

/** What the guard reads from a storage: the throttler's record plus the exact reset time. */
export interface SlidingWindowRecord {
  totalHits: number;
  /** Seconds until the oldest accepted request leaves the window. */
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
  resetAtMs: number;
}

const SWEEP_INTERVAL_MS = 10_000;

/**
 * The throttler's storage, as a rolling window of accepted requests per key (refused ones
 * are not recorded; `blockDuration` is ignored: a key is blocked only while its window is
 * full). One process's memory: SharedWindowStorage adds the limit held across replicas.
 */
export class SlidingWindowStorage implements ThrottlerStorage {
  private readonly logs = new Map<string, SlidingWindowLog>();

  constructor(private readonly now: () => number = Date.now) {
    // unref: the sweep never keeps a stopping process alive.
    setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  async increment(key: string, ttlMs: number, limit: number): Promise<SlidingWindowRecord> {
    const now = this.now();
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = new SlidingWindowLog()));
    return recordOf(log.hit(now, limit, ttlMs), now);
  }

  /** What `increment` would answer now, without counting anything. */
  peek(key: string, ttlMs: number, limit: number): SlidingWindowRecord {
    const now = this.now();
    const log = this.logs.get(key);
    return recordOf(log ? log.peek(now, limit, ttlMs) : { allowed: limit > 0, count: 0, resetAtMs: now }, now);
  }

  /** Keys idle for a sweep interval (longer than any window) are forgotten, so memory follows the active keys. */
  private sweep(): void {
    const now = this.now();
    for (const [key, log] of this.logs) if (log.isIdle(now, SWEEP_INTERVAL_MS)) this.logs.delete(key);
  }
}

function recordOf({ allowed, count, resetAtMs }: RateDecision, now: number): SlidingWindowRecord {
  const secondsLeft = Math.max(0, resetAtMs - now) / 1_000;
  return {
    totalHits: allowed ? count : count + 1,
    timeToExpire: secondsLeft,
    isBlocked: !allowed,
    timeToBlockExpire: allowed ? 0 : secondsLeft,
    resetAtMs,
  };
}
