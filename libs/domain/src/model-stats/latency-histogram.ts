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

const upperBound = (bucket: number): number => 2 ** (bucket / LATENCY_BUCKETS_PER_DOUBLING);

/** Each bucket's upper bound but the last's, ascending: a latency's bucket is how many of them lie below it. */
const UPPER_BOUNDS = Array.from({ length: LAST_BUCKET }, (_, bucket) => upperBound(bucket));

/** The bucket of a latency: how many upper bounds lie below it (none for NaN). */
export function latencyBucketOf(latencyMs: number): number {
  let bucket = 0;
  while (bucket < LAST_BUCKET && UPPER_BOUNDS[bucket] < latencyMs) bucket++;
  return bucket;
}

/** The bounds negated, ascending, as an SQL array: what `latencyBucketSql` searches. */
const NEGATED_BOUNDS_SQL = `'{${[...UPPER_BOUNDS]
  .reverse()
  .map((b) => -b)
  .join(',')}}'::float8[]`;

/**
 * The same bucket index in SQL, for a latency in milliseconds (`ms`, a float8 expression): the
 * bounds below it, counted by a binary search on the same doubles. `width_bucket` counts the
 * thresholds at or below its operand, so it counts the bounds at or above the latency, negated.
 * No logarithm: Postgres has a base-2 one only in `numeric`, at 10 µs a span, more than half of a
 * stats recount.
 */
export const latencyBucketSql = (ms: string): string => `(${LAST_BUCKET} - width_bucket(-(${ms}), ${NEGATED_BOUNDS_SQL}))`;

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
