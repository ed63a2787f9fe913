import fc from 'fast-check';
import {
  LATENCY_BUCKET_COUNT,
  type LatencyHistogram,
  histogramCount,
  latencyBucketOf,
  latencyQuantile,
  mergeHistograms,
} from './latency-histogram';

const histogramOf = (latencies: number[]): LatencyHistogram => {
  const h: LatencyHistogram = {};
  for (const l of latencies) h[latencyBucketOf(l)] = (h[latencyBucketOf(l)] ?? 0) + 1;
  return h;
};

const exactQuantile = (latencies: number[], q: number) =>
  [...latencies].sort((a, b) => a - b)[Math.max(1, Math.ceil(q * latencies.length)) - 1];

describe('latency histogram', () => {
  it('puts every latency in a bucket, ascending with the latency', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.double({ min: 0, max: 1e9, noNaN: true }), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(latencyBucketOf(low)).toBeGreaterThanOrEqual(0);
        expect(latencyBucketOf(high)).toBeLessThan(LATENCY_BUCKET_COUNT);
        expect(latencyBucketOf(low)).toBeLessThanOrEqual(latencyBucketOf(high));
      }),
    );
    expect(latencyBucketOf(Number.NaN)).toBe(0);
    expect(latencyBucketOf(-5)).toBe(0);
  });

  it('reads back any quantile within 9.1% of the exact one, for latencies from 1 ms to an hour', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1, max: 3_600_000, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (latencies, q) => {
          const estimate = latencyQuantile(histogramOf(latencies), q) as number;
          const exact = exactQuantile(latencies, q);
          expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(0.091);
        },
      ),
    );
  });

  it('merges hours by adding counts: the quantile of the merge is the quantile of all spans', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.double({ min: 1, max: 100_000, noNaN: true }), { maxLength: 50 }), { minLength: 1, maxLength: 6 }),
        (hours) => {
          const merged = mergeHistograms(hours.map(histogramOf));
          const all = hours.flat();
          expect(histogramCount(merged)).toBe(all.length);
          expect(merged).toEqual(histogramOf(all));
        },
      ),
    );
  });

  it('has no quantile without spans', () => {
    expect(latencyQuantile({}, 0.5)).toBeNull();
  });
});
