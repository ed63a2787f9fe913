import 'reflect-metadata';
import { RateLimitLeaseStore } from './rate-limit-lease-store';
import { useTestDatabase } from '../testing/test-database';

describe(RateLimitLeaseStore.name, () => {
  const db = useTestDatabase();
  const store = () => new RateLimitLeaseStore(db.ds);

  it('grants leases that add up to the limit of a window however many ask at once, then nothing', async () => {
    const grants = await Promise.all(Array.from({ length: 40 }, () => store().lease('key:a', 7, 1_000, 5, 100)));
    expect(grants.reduce((a, b) => a + b, 0)).toBe(100);
    expect(grants.filter((g) => g === 5)).toHaveLength(20);
    expect(await store().lease('key:a', 7, 1_000, 5, 100)).toBe(0);
  });

  it('grants the rest when less than a chunk is left, starts the next window afresh, and grants nothing to a window passed', async () => {
    expect(await store().lease('key:b', 1, 1_000, 4, 10)).toBe(4);
    expect(await store().lease('key:b', 1, 1_000, 4, 10)).toBe(4);
    expect(await store().lease('key:b', 1, 1_000, 4, 10)).toBe(2);
    expect(await store().lease('key:b', 2, 1_000, 4, 10)).toBe(4);
    expect(await store().lease('key:b', 1, 1_000, 4, 10)).toBe(0);
    expect(await store().lease('key:c', 1, 1_000, 4, 10)).toBe(4);
  });

  it('sweeps the rows of buckets idle for a minute', async () => {
    await store().lease('key:old', 1_000, 1_000, 1, 10);
    await store().lease('key:new', 1_100, 1_000, 1, 10);
    expect(await store().sweep(1_100_000)).toBeGreaterThanOrEqual(1);
    const rows: { bucket: string }[] = await db.ds.query(
      `SELECT bucket FROM rate_limit_leases WHERE bucket LIKE 'key:old' OR bucket LIKE 'key:new'`,
    );
    expect(rows.map((r) => r.bucket)).toEqual(['key:new']);
  });
});
