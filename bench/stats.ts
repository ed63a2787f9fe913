/** The q-quantile (0–1) of samples by the nearest-rank method; null without samples. */
export function percentile(samples: readonly number[], q: number): number | null {
  if (!samples.length) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
