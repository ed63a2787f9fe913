/**
 * Span latencies in fixed, log-spaced buckets: bucket i holds latencies up to 2^(i/4) ms, so
 * each bucket is 19% wider than the one before it, from 1 ms (bucket 0) to about 4.7 hours
 * (the last bucket also holds anything longer). Histograms of different hours and projects
 * merge by adding counts, so p50 and p95 over any window come from all its spans, never from
 * averaging percentiles; a quantile read back is the bucket's geometric middle, within 9.1%
 * of the true value.
 */
export const LATENCY_BUCKETS_PER_DOUBLING = 4;
export const LATENCY_BUCKET_COUNT = 97;
const LAST_BUCKET = LATENCY_BUCKET_COUNT - 1;

/** Sparse: bucket index (as a string, the jsonb key) → spans in it. */
export type LatencyHistogram = Record<string, number>;

export function latencyBucketOf(latencyMs: number): number {
  if (!(latencyMs > 1)) return 0;
  return Math.min(LAST_BUCKET, Math.ceil(LATENCY_BUCKETS_PER_DOUBLING * Math.log2(latencyMs)));
}

/** The same bucket index in SQL, for a latency in milliseconds (`ms`, a float8 expression). */
export const latencyBucketSql = (ms: string): string =>
  `least(${LAST_BUCKET}, greatest(0, ceil(${LATENCY_BUCKETS_PER_DOUBLING} * log(2, greatest(${ms}, 1)::numeric))))::int`;

const upperBound = (bucket: number): number => 2 ** (bucket / LATENCY_BUCKETS_PER_DOUBLING);

export function mergeHistograms(histograms: Iterable<LatencyHistogram>): LatencyHistogram {
  const merged: LatencyHistogram = {};
  for (const h of histograms) for (const [bucket, n] of Object.entries(h)) merged[bucket] = (merged[bucket] ?? 0) + n;
  return merged;
}

export const histogramCount = (h: LatencyHistogram): number => Object.values(h).reduce((n, c) => n + c, 0);

/** The latency below which a fraction `q` (0–1) of the spans fall, or null for no spans. */
export function latencyQuantile(h: LatencyHistogram, q: number): number | null {
  const total = histogramCount(h);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of Object.keys(h)
    .map(Number)
    .sort((a, b) => a - b)) {
    seen += h[bucket];
    if (seen >= rank) return bucket === 0 ? 1 : Math.sqrt(upperBound(bucket - 1) * upperBound(bucket));
  }
  return null;
}
