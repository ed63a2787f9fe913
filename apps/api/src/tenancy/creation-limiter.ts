import { CREATION_RATE, DomainError, SlidingWindowLog } from '@app/domain';

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Creations of organizations, projects and API keys per user, in a rolling minute
 * (CREATION_RATE, `SPANLOG_CREATIONS_PER_MINUTE`; 0 is no limit): each is a row, an audit
 * event and, for a key, a rate-limit bucket of its own, and 200 organizations in a second
 * were 200 fresh Free quotas. One process's memory: N API replicas allow N times as many, and
 * the counts that matter (Free organizations per user, active keys per project) are checked in
 * Postgres when creating (docs/ARCHITECTURE.md "Replicas").
 */
export class CreationLimiter {
  private readonly logs = new Map<string, SlidingWindowLog>();
  private sweepAt = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one creation by this user, or throws 429 with Retry-After when they made their share. */
  take(userId: string): void {
    if (this.perMinute === 0) return;
    const now = this.now();
    this.sweep(now);
    let log = this.logs.get(userId);
    if (!log) this.logs.set(userId, (log = new SlidingWindowLog()));
    const decision = log.hit(now, this.perMinute, CREATION_RATE.windowMs);
    if (decision.allowed) return;
    const seconds = Math.max(1, Math.ceil((decision.resetAtMs - now) / 1_000));
    throw new DomainError(
      'RATE_LIMIT_EXCEEDED',
      `a user may create at most ${this.perMinute} organizations, projects and API keys a minute; retry after ${seconds} second${seconds === 1 ? '' : 's'}`,
      { 'Retry-After': String(seconds) },
    );
  }

  /** Users with nothing left in the window are forgotten, so memory follows the active ones. */
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + SWEEP_INTERVAL_MS;
    for (const [userId, log] of this.logs) if (log.isIdle(now, CREATION_RATE.windowMs)) this.logs.delete(userId);
  }
}
