import { leaseSizeOf, windowNumberOf } from '@app/domain';

/** The shared counter of every replica: grants up to `want` of a bucket's window's `limit` tokens, 0 once they are all out. */
export interface LeaseStore {
  lease(bucket: string, window: number, windowMs: number, want: number, limit: number): Promise<number>;
}

/** What a replica holds of one bucket: tokens leased for one window and not spent yet. */
interface Pool {
  window: number;
  tokens: number;
  /** The shared counter granted less than asked: the window's tokens are all out, asking again is pointless. */
  exhausted: boolean;
  /** The lease in flight, which every request finding the pool empty waits for. */
  leasing: Promise<void> | null;
}

/**
 * One replica's share of rate limits held across replicas (docs/ARCHITECTURE.md "Replicas"):
 * a request spends a token leased from the shared counter for its fixed window; a pool half
 * spent leases the next chunk ahead, an empty one waits for it (one lease at a time per
 * bucket), and a window whose tokens are all out is refused with no further question. If the shared counter cannot be reached the replica takes
 * the window's whole limit from itself, so limits fall back to one replica's rather than
 * refusing everything.
 */
export class WindowLeases {
  private readonly pools = new Map<string, Pool>();
  private sweepAt = 0;

  constructor(
    private readonly store: LeaseStore,
    private readonly windowMs: number,
    private readonly onStoreFailure: (err: Error) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Spends one token of the bucket's current window, leasing more if needed; false when the
   * window's limit is reached. The window is read again after a lease: a request that waited
   * across a window's end counts in the new one.
   */
  async take(bucket: string, limit: number): Promise<boolean> {
    for (;;) {
      const window = windowNumberOf(this.now(), this.windowMs);
      this.sweep(window);
      const pool = this.poolOf(bucket, window);
      if (pool.tokens > 0) {
        pool.tokens--;
        // The next chunk is leased while half of this one is left, so a busy bucket's requests seldom wait for one.
        if (pool.tokens < leaseSizeOf(limit) / 2) void this.leaseOnce(bucket, pool, limit);
        return true;
      }
      if (pool.exhausted) return false;
      await this.leaseOnce(bucket, pool, limit);
    }
  }

  /** Gives back a token taken for a request that was refused after all, to the window it was taken from. */
  giveBack(bucket: string): void {
    const pool = this.pools.get(bucket);
    if (pool && pool.window === windowNumberOf(this.now(), this.windowMs)) pool.tokens++;
  }

  private poolOf(bucket: string, window: number): Pool {
    let pool = this.pools.get(bucket);
    // A lease still in flight for the old window is left to it: its tokens are lost, never spent twice.
    if (!pool || pool.window < window) {
      pool = { window, tokens: 0, exhausted: false, leasing: null };
      this.pools.set(bucket, pool);
    }
    return pool;
  }

  /** The lease in flight for the pool, or a new one; none once the window's tokens are out. */
  private leaseOnce(bucket: string, pool: Pool, limit: number): Promise<void> {
    if (pool.exhausted) return Promise.resolve();
    return (pool.leasing ??= this.lease(bucket, pool, limit).finally(() => (pool.leasing = null)));
  }

  private async lease(bucket: string, pool: Pool, limit: number): Promise<void> {
    const want = leaseSizeOf(limit);
    try {
      const granted = await this.store.lease(bucket, pool.window, this.windowMs, want, limit);
      pool.tokens += granted;
      if (granted < want) pool.exhausted = true;
    } catch (err) {
      this.onStoreFailure(err as Error);
      // The window's whole limit, so an unreachable counter costs one failed lease per bucket and window, not one per chunk.
      pool.tokens = limit;
      pool.exhausted = true;
    }
  }

  /** Pools of past windows are forgotten once a window, so memory follows the active buckets. */
  private sweep(window: number): void {
    if (window < this.sweepAt) return;
    this.sweepAt = window + 1;
    for (const [bucket, pool] of this.pools) if (pool.window < window && !pool.leasing) this.pools.delete(bucket);
  }
}
