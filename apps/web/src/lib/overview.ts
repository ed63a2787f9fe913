import type { Outputs } from '../rpc';

export type Overview = Outputs['stats']['overview'];

export const RANGES = [
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

export function totals(series: Overview['series']) {
  return series.reduce(
    (sum, p) => ({
      traces: sum.traces + p.traces,
      spans: sum.spans + p.spans,
      errors: sum.errors + p.errors,
      costUsd: sum.costUsd + p.costUsd,
      tokens: sum.tokens + p.tokens,
    }),
    {
      traces: 0,
      spans: 0,
      errors: 0,
      costUsd: 0,
      tokens: 0,
    },
  );
}
