import { FAILED_KEY_AUTHS_PER_SECOND_PER_IP, RATE_LIMIT_WINDOW_MS, SlidingWindowLog } from '@app/domain';

const SWEEP_INTERVAL_MS = 10_000;

/**
 * Failed API-key authentications per client IP, in a rolling window: an IP that sent
 * FAILED_KEY_AUTHS_PER_SECOND_PER_IP unknown or revoked keys in the last second has its next
 * unknown keys refused before they cost a database look-up. A failure counts once its
 * look-up has answered, so keys sent all at once are looked up before the first of them
 * counts; look-ups in flight are not counted, or a client sending many valid keys at once
 * (a collector forwarding for several projects) would be refused for keys that are fine.
 * One process's memory: it guards this replica's look-ups (docs/ARCHITECTURE.md "Replicas").
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, SlidingWindowLog>();
  private sweepAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds until this IP may try an unknown key again; 0 when it may now. */
  blockedForMs(ip: string): number {
    const now = this.now();
    const decision = this.failures.get(ip)?.peek(now, FAILED_KEY_AUTHS_PER_SECOND_PER_IP, RATE_LIMIT_WINDOW_MS);
    return decision && !decision.allowed ? Math.max(1, decision.resetAtMs - now) : 0;
  }

  recordFailure(ip: string): void {
    const now = this.now();
    this.sweep(now);
    let log = this.failures.get(ip);
    if (!log) this.failures.set(ip, (log = new SlidingWindowLog()));
    log.hit(now, FAILED_KEY_AUTHS_PER_SECOND_PER_IP, RATE_LIMIT_WINDOW_MS);
  }

  /** IPs with no failure left in the window are forgotten, so memory follows the failing clients. */
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + SWEEP_INTERVAL_MS;
    for (const [ip, log] of this.failures) if (log.isIdle(now, RATE_LIMIT_WINDOW_MS)) this.failures.delete(ip);
  }
}
