import type { JsonValue } from '../json/types';

/** A score of a run item's trace, or of the run itself. */
export interface RunScore {
  name: string;
  value: number | string | boolean;
  comment: string | null;
  /** When the score was stated: of two with one name, the newer counts. */
  timestamp: string;
}

/** One dataset item's result in a run: what its trace shows. */
export interface RunItemResult {
  datasetItemId: string;
  traceId: string;
  spanId: string | null;
  /** The item as it is now; null when the item is gone from the dataset. */
  input: JsonValue | null;
  expectedOutput: JsonValue | null;
  /** The trace's output, else (Langfuse's experiments write it there) its linked span's. */
  output: JsonValue | null;
  latencyMs: number | null;
  totalTokens: number | null;
  totalCost: number | null;
  /** The trace's scores, one per name: the newest. */
  scores: RunScore[];
  createdAt: string;
}

export interface ScoreMean {
  name: string;
  mean: number;
  /** Items that have a numeric or boolean score of this name. */
  count: number;
}

export interface RunAggregates {
  /** Run items. */
  count: number;
  /** Per score name (numeric and boolean scores; true is 1), the mean over the items that have it. */
  scores: ScoreMean[];
  latencyMs: { p50: number | null; p95: number | null };
  /** Sum of the items' trace costs (null when none has a cost). */
  totalCost: number | null;
  totalTokens: number | null;
}

/**
 * The nearest-rank percentile (the smallest value at or above which `p` percent of the values
 * lie): always a value that was measured, so a p95 of ten latencies is the largest, not a blend.
 */
export function percentile(values: number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** A score's value as a number to average: numbers as they are, booleans as 1 and 0; categories have no mean. */
const numericValue = (value: RunScore['value']): number | null => {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
};

/** Of several scores with one name (an evaluator run again), the newest. */
export function newestScores(scores: RunScore[]): RunScore[] {
  const byName = new Map<string, RunScore>();
  for (const score of scores) {
    const seen = byName.get(score.name);
    if (!seen || score.timestamp > seen.timestamp) byName.set(score.name, score);
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

const sumOrNull = (values: (number | null)[]): number | null => {
  const present = values.filter((v): v is number => v !== null);
  return present.length ? present.reduce((a, b) => a + b, 0) : null;
};

/** A run's aggregates over its items' results. */
export function aggregateRun(items: Pick<RunItemResult, 'latencyMs' | 'totalCost' | 'totalTokens' | 'scores'>[]): RunAggregates {
  const byName = new Map<string, number[]>();
  for (const item of items)
    for (const score of item.scores) {
      const value = numericValue(score.value);
      if (value !== null) byName.set(score.name, [...(byName.get(score.name) ?? []), value]);
    }
  const latencies = items.map((i) => i.latencyMs).filter((v): v is number => v !== null);
  return {
    count: items.length,
    scores: [...byName.entries()]
      .map(([name, values]) => ({ name, mean: values.reduce((a, b) => a + b, 0) / values.length, count: values.length }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    totalCost: sumOrNull(items.map((i) => i.totalCost)),
    totalTokens: sumOrNull(items.map((i) => i.totalTokens)),
  };
}

/** Runs side by side (the dashboard's comparison): per dataset item, each run's result (null where a run has none). */
export interface RunComparisonRow {
  datasetItemId: string;
  input: JsonValue | null;
  expectedOutput: JsonValue | null;
  results: (RunItemResult | null)[];
}

export function compareRuns(runs: RunItemResult[][]): RunComparisonRow[] {
  const rows = new Map<string, RunComparisonRow>();
  runs.forEach((items, r) => {
    for (const item of items) {
      let row = rows.get(item.datasetItemId);
      if (!row) {
        row = { datasetItemId: item.datasetItemId, input: item.input, expectedOutput: item.expectedOutput, results: runs.map(() => null) };
        rows.set(item.datasetItemId, row);
      }
      row.results[r] = item;
    }
  });
  return [...rows.values()].sort((a, b) => (a.datasetItemId < b.datasetItemId ? -1 : a.datasetItemId > b.datasetItemId ? 1 : 0));
}
