/** What one request learns from its key's window (SPEC 8.2, CONTRACT "Rate limits"). */
export interface RateDecision {
  allowed: boolean;
  /** Accepted requests in the window, this one included when allowed. */
  count: number;
  /** When the oldest accepted request leaves the window (epoch ms); now when the window is empty. */
  resetAtMs: number;
}

/**
 * A rolling window of accepted requests for one key: a request is allowed while fewer than
 * `limit` requests were accepted in the last `windowMs`. Refused requests are not recorded,
 * so a client that keeps retrying is let in again as soon as its oldest request expires.
 * The clock is passed in.
 */
export class SlidingWindowLog {
  /** Accepted times, oldest first; `head` skips the expired ones until compaction. */
  private times: number[] = [];
  private head = 0;

  hit(nowMs: number, limit: number, windowMs: number): RateDecision {
    this.expire(nowMs, windowMs);
    const allowed = this.size < limit;
    if (allowed) this.times.push(nowMs);
    return { allowed, count: this.size, resetAtMs: this.size ? this.times[this.head] + windowMs : nowMs };
  }

  /** What `hit` would answer at `nowMs`, without recording anything. */
  peek(nowMs: number, limit: number, windowMs: number): RateDecision {
    this.expire(nowMs, windowMs);
    return { allowed: this.size < limit, count: this.size, resetAtMs: this.size ? this.times[this.head] + windowMs : nowMs };
  }

  /** Whether nothing in the window remains at `nowMs`: the log can be forgotten. */
  isIdle(nowMs: number, windowMs: number): boolean {
    this.expire(nowMs, windowMs);
    return this.size === 0;
  }

  private get size(): number {
    return this.times.length - this.head;
  }

  private expire(nowMs: number, windowMs: number): void {
    while (this.head < this.times.length && this.times[this.head] <= nowMs - windowMs) this.head++;
    if (this.head > 1_024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
