import { CounterLeaseStore } from './testing/counter-lease-store';
import { WindowLeases } from './window-leases';

const takeMany = async (leases: WindowLeases, bucket: string, limit: number, n: number) =>
  (await Promise.all(Array.from({ length: n }, () => leases.take(bucket, limit)))).filter(Boolean).length;

describe(WindowLeases.name, () => {
  let now = 1_700_000_000_000;
  const clock = () => now;

  it('accepts the limit per window across replicas sharing a counter, leasing a twentieth of it at a time', async () => {
    const store = new CounterLeaseStore();
    const [a, b] = [new WindowLeases(store, 1_000, () => undefined, clock), new WindowLeases(store, 1_000, () => undefined, clock)];
    const accepted = (await takeMany(a, 'key:1', 100, 80)) + (await takeMany(b, 'key:1', 100, 80));
    // a may still hold what it leased ahead: spent now, every token of the window is.
    expect(accepted + (await takeMany(a, 'key:1', 100, 80))).toBe(100);
    // 20 chunks of 5, and at most one refused lease per replica.
    expect(store.leases).toBeLessThanOrEqual(22);
    const leases = store.leases;
    // Refusals once the window is out ask nothing.
    expect(await takeMany(a, 'key:1', 100, 50)).toBe(0);
    expect(await takeMany(b, 'key:1', 100, 50)).toBe(0);
    expect(store.leases).toBe(leases);
  });

  it('leases the next chunk while half of one is left, and no more than the window holds', async () => {
    const store = new CounterLeaseStore();
    const leases = new WindowLeases(store, 1_000, () => undefined, clock);
    expect(await leases.take('key:1', 100)).toBe(true);
    expect(store.leases).toBe(1);
    for (let i = 0; i < 3; i++) await leases.take('key:1', 100);
    // One token left of five: the next chunk is already asked for.
    expect(store.leases).toBe(2);
    expect(await takeMany(leases, 'key:1', 100, 200)).toBe(96);
    // 20 chunks, and the one ahead that found the window out.
    expect(store.leases).toBe(21);
  });

  it('starts every window afresh, and keeps buckets apart', async () => {
    const store = new CounterLeaseStore();
    const leases = new WindowLeases(store, 1_000, () => undefined, clock);
    expect(await takeMany(leases, 'key:1', 10, 15)).toBe(10);
    expect(await takeMany(leases, 'key:2', 10, 15)).toBe(10);
    now += 1_000;
    expect(await takeMany(leases, 'key:1', 10, 15)).toBe(10);
  });

  it('loses only what a replica leased and did not spend when the window ends', async () => {
    const store = new CounterLeaseStore();
    const [a, b] = [new WindowLeases(store, 1_000, () => undefined, clock), new WindowLeases(store, 1_000, () => undefined, clock)];
    // a leases a chunk of 5 for one request, b takes what is left.
    expect(await a.take('key:1', 100)).toBe(true);
    expect(await takeMany(b, 'key:1', 100, 200)).toBe(95);
    expect(await takeMany(a, 'key:1', 100, 10)).toBe(4);
  });

  it('spends a token given back again, in the same window', async () => {
    const store = new CounterLeaseStore();
    const leases = new WindowLeases(store, 1_000, () => undefined, clock);
    expect(await takeMany(leases, 'key:1', 1, 1)).toBe(1);
    leases.giveBack('key:1');
    expect(await leases.take('key:1', 1)).toBe(true);
    expect(await leases.take('key:1', 1)).toBe(false);
  });

  it('takes the whole window from itself when the shared counter fails, asking it again next window, and says so', async () => {
    const store = new CounterLeaseStore();
    store.failing = true;
    const failures: string[] = [];
    const leases = new WindowLeases(store, 1_000, (err) => failures.push(err.message), clock);
    expect(await takeMany(leases, 'key:1', 100, 120)).toBe(100);
    expect(store.leases).toBe(1);
    expect(failures).toEqual(['connection refused']);
    now += 1_000;
    store.failing = false;
    expect(await takeMany(leases, 'key:1', 100, 10)).toBe(10);
    expect(store.leases).toBeGreaterThan(1);
  });
});
