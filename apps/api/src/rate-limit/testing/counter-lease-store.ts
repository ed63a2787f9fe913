import type { LeaseStore } from '../window-leases';

/** The shared counter's rule in memory, as RateLimitLeaseStore's statement applies it, counting the leases asked. */
export class CounterLeaseStore implements LeaseStore {
  private readonly granted = new Map<string, number>();
  leases = 0;
  failing = false;

  async lease(bucket: string, window: number, _windowMs: number, want: number, limit: number): Promise<number> {
    this.leases++;
    if (this.failing) throw new Error('connection refused');
    const key = `${bucket}@${window}`;
    const out = this.granted.get(key) ?? 0;
    const grant = Math.max(0, Math.min(want, limit - out));
    this.granted.set(key, out + grant);
    return grant;
  }
}
