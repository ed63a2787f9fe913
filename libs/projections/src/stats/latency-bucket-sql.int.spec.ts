import 'reflect-metadata';
import fc from 'fast-check';
import { LATENCY_BUCKETS_PER_DOUBLING, latencyBucketOf, latencyBucketSql } from '@app/domain';
import { useTestDatabase } from '@app/persistence/testing/test-database';

/** The double next to `x` towards +∞ (`step` 1) or −∞ (−1), for a positive finite `x`. */
function nextDouble(x: number, step: 1 | -1): number {
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  bits[0] += BigInt(step);
  return new Float64Array(bits.buffer)[0];
}

/** Each bucket's bound, and the doubles on either side of it. */
const edges = Array.from({ length: 100 }, (_, k) => 2 ** (k / LATENCY_BUCKETS_PER_DOUBLING)).flatMap((b) => [
  nextDouble(b, -1),
  b,
  nextDouble(b, 1),
]);

/**
 * The histograms are counted in SQL (`latencyBucketSql`) and read and tested in TypeScript
 * (`latencyBucketOf`): the two must put every latency in the same bucket, and in the bucket a
 * base-2 logarithm in `numeric` put it in (the SQL before it, whose histograms are stored).
 */
describe('latency buckets in SQL', () => {
  const db = useTestDatabase();

  const inSql = async (latencies: number[]): Promise<{ bucket: number; byLog: number }[]> =>
    db.ds.query(
      `SELECT ${latencyBucketSql('l')} AS bucket,
              least(96, greatest(0, ceil(${LATENCY_BUCKETS_PER_DOUBLING} * log(2, greatest(l, 1)::numeric))))::int AS "byLog"
         FROM unnest($1::float8[]) WITH ORDINALITY AS x (l, n) ORDER BY n`,
      [latencies],
    );

  it('agrees with TypeScript on every bound, the doubles beside it, and latencies of 1 ms and less', async () => {
    const latencies = [...edges, 0, -3, 0.5, 1, 1e12];
    const rows = await inSql(latencies);
    expect(rows.map((r) => r.bucket)).toEqual(latencies.map(latencyBucketOf));
    // And with the logarithm, exact in numeric, on the bounds that are powers of two (an 8 ms call:
    // bucket 12). Another bound is the double nearest an irrational number, which the logarithm
    // puts a bucket higher when the double lies above it: a difference of one ulp.
    const powersOfTwo = rows.filter((_, i) => i % (3 * LATENCY_BUCKETS_PER_DOUBLING) === 1);
    expect(powersOfTwo.map((r) => r.bucket)).toEqual(powersOfTwo.map((r) => r.byLog));
    expect(powersOfTwo.slice(0, 4).map((r) => r.bucket)).toEqual([0, 4, 8, 12]);
  });

  it('agrees with TypeScript and with the logarithm on any latency', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 200 }), async (latencies) => {
        const rows = await inSql(latencies);
        expect(rows.map((r) => r.bucket)).toEqual(latencies.map(latencyBucketOf));
        expect(rows.map((r) => r.bucket)).toEqual(rows.map((r) => r.byLog));
      }),
      { numRuns: 50 },
    );
  });
});
