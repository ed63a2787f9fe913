import { validationError } from '../errors';
import { isJsonObject } from '../json/types';
import { type LatencyHistogram, histogramCount, latencyQuantile, mergeHistograms } from '../model-stats/latency-histogram';
import { isLlmCall } from '../telemetry/llm-call';
import { Optional, Required, timestamp, validateDto } from '../validation';
import { toIso } from '../time';

/** The overview stats' resolution, and the bounds of what `stats.overview` answers (RPC-SHAPES). */
export const OVERVIEW_LIMITS = {
  /** Seconds in one stored bucket: every series point is a whole number of them. */
  bucketSeconds: 300,
  maxRangeDays: 90,
  /** A chosen bucket gives at most this many points. */
  autoPoints: 200,
  /** A requested bucket may give at most this many. */
  maxPoints: 2_000,
} as const;

const DAY_MS = 86_400_000;
/** The widths a bucket is chosen from when none is asked for; each divides a day, so points start at UTC midnight. */
const AUTO_BUCKET_SECONDS = [300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400] as const;

/** Span stats summed over some buckets. */
export interface SpanSums {
  calls: number;
  errors: number;
  costUsd: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Spans with usage the price table could not price (`unpricedUsage`). */
  unpricedCalls: number;
  latency: LatencyHistogram;
}

/** Score stats summed over some buckets: `numericScores` have a number value, `judged` say pass or fail. */
export interface ScoreSums {
  scores: number;
  numericScores: number;
  valueSum: number;
  judged: number;
  passed: number;
}

/** What the read model holds for an overview, grouped: series points by start (ms since the epoch). */
export interface OverviewSums {
  series: (SpanSums & { t: number })[];
  traces: { t: number; traces: number }[];
  models: (SpanSums & { model: string })[];
  spanTypes: (SpanSums & { spanType: string })[];
  /** By operation ('' when none) and span type: the LLM-call rule needs both. */
  operations: (SpanSums & { operation: string; spanType: string })[];
  scores: (ScoreSums & { name: string; source: string })[];
}

/** A filter on the stats' dimensions (monitors); absent fields match everything. */
export interface StatsFilter {
  model?: string;
  spanType?: string;
  traceName?: string;
  /** Compared in any case, as the trace list's operation filter. */
  operation?: string;
}

const wholeBucketMultiple = {
  test: (v: unknown) =>
    Number.isInteger(v) && (v as number) >= OVERVIEW_LIMITS.bucketSeconds && (v as number) % OVERVIEW_LIMITS.bucketSeconds === 0,
  message: `must be a whole multiple of ${OVERVIEW_LIMITS.bucketSeconds} seconds`,
};

export class OverviewInput {
  @Required(timestamp) from: string;
  @Required(timestamp) to: string;
  @Optional(wholeBucketMultiple) bucketSeconds?: number;
}

/** A checked overview request: the range in ms since the epoch, the series' bucket chosen. */
export interface OverviewRange {
  fromMs: number;
  toMs: number;
  bucketSeconds: number;
}

/** The smallest listed bucket giving at most `autoPoints` points over the range. */
export function chooseBucketSeconds(fromMs: number, toMs: number): number {
  const span = toMs - fromMs;
  return (
    AUTO_BUCKET_SECONDS.find((s) => Math.ceil(span / (s * 1000)) <= OVERVIEW_LIMITS.autoPoints) ??
    AUTO_BUCKET_SECONDS[AUTO_BUCKET_SECONDS.length - 1]
  );
}

/** `stats.overview`'s input past its projectId: `{ from, to, bucketSeconds? }`. */
export function validateOverviewRange(input: unknown): OverviewRange {
  if (!isJsonObject(input)) throw validationError('input must be an object');
  const checked = validateDto(OverviewInput, input, 'input');
  if (!checked.ok) throw validationError(checked.message);
  const fromMs = Date.parse(checked.value.from);
  const toMs = Date.parse(checked.value.to);
  if (toMs <= fromMs) throw validationError('input.to: must be after input.from');
  if (toMs - fromMs > OVERVIEW_LIMITS.maxRangeDays * DAY_MS)
    throw validationError(`input.to: must be at most ${OVERVIEW_LIMITS.maxRangeDays} days after input.from`);
  const bucketSeconds = checked.value.bucketSeconds ?? chooseBucketSeconds(fromMs, toMs);
  const points = Math.ceil((toMs - fromMs) / (bucketSeconds * 1000)) + 1;
  if (points > OVERVIEW_LIMITS.maxPoints) {
    throw validationError(
      `input.bucketSeconds: gives ${points} points over the range; at most ${OVERVIEW_LIMITS.maxPoints} (a larger bucket, or leave it out to have one chosen)`,
    );
  }
  return { fromMs, toMs, bucketSeconds };
}

const floorTo = (ms: number, stepMs: number) => Math.floor(ms / stepMs) * stepMs;

/**
 * The stored buckets a range reads: those whose start is in [from floored to a stored bucket,
 * to). The stats are counted per whole 5-minute bucket, so a range's edges have that resolution.
 */
export function storedBucketRange(range: OverviewRange): { from: Date; to: Date } {
  return { from: new Date(floorTo(range.fromMs, OVERVIEW_LIMITS.bucketSeconds * 1000)), to: new Date(range.toMs) };
}

/** A ratio of sums to 12 significant digits (sums of floats carry noise no client should see), null when nothing was counted. */
const ratio = (n: number, d: number): number | null => (d > 0 ? Number((n / d).toPrecision(12)) : null);
const money = (v: number): number => Number(v.toPrecision(12));
const quantile = (h: LatencyHistogram, q: number): number | null => {
  const v = histogramCount(h) ? latencyQuantile(h, q) : null;
  return v === null ? null : Math.round(v * 100) / 100;
};

export interface OverviewPoint {
  t: string;
  traces: number;
  spans: number;
  errors: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  costUsd: number;
  tokens: number;
}

export interface OperationStats {
  operation: string | null;
  calls: number;
  errors: number;
  errorRate: number | null;
  costUsd: number;
  tokens: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

/** The (operation, span type) sums merged per operation. */
function byOperation(sums: OverviewSums['operations']): (SpanSums & { operation: string })[] {
  const merged = new Map<string, { sums: SpanSums & { operation: string }; histograms: LatencyHistogram[] }>();
  for (const s of sums) {
    const m = merged.get(s.operation);
    if (!m) {
      merged.set(s.operation, {
        sums: {
          operation: s.operation,
          calls: s.calls,
          errors: s.errors,
          costUsd: s.costUsd,
          promptTokens: s.promptTokens,
          completionTokens: s.completionTokens,
          totalTokens: s.totalTokens,
          unpricedCalls: s.unpricedCalls,
          latency: {},
        },
        histograms: [s.latency],
      });
      continue;
    }
    m.sums.calls += s.calls;
    m.sums.errors += s.errors;
    m.sums.costUsd += s.costUsd;
    m.sums.promptTokens += s.promptTokens;
    m.sums.completionTokens += s.completionTokens;
    m.sums.totalTokens += s.totalTokens;
    m.sums.unpricedCalls += s.unpricedCalls;
    m.histograms.push(s.latency);
  }
  return [...merged.values()].map((m) => ({ ...m.sums, latency: mergeHistograms(m.histograms) }));
}

export interface Overview {
  from: string;
  to: string;
  bucketSeconds: number;
  series: OverviewPoint[];
  models: {
    model: string;
    calls: number;
    errors: number;
    costUsd: number;
    promptTokens: number;
    completionTokens: number;
    latencyP50Ms: number | null;
    latencyP95Ms: number | null;
    /** Calls with usage no price covered: their share of `costUsd` is missing, not zero. */
    unpricedCalls: number;
  }[];
  spanTypes: { spanType: string; calls: number; errors: number; errorRate: number | null }[];
  /** Spans that are LLM calls by `isLlmCall`: not every span of type LLM. */
  llmCalls: number;
  /** Per operation, `null` for spans without one. */
  operations: OperationStats[];
  scores: { name: string; source: string; count: number; mean: number | null; passRate: number | null }[];
}

/**
 * The `stats.overview` answer from the read model's sums: one series point per bucket of the
 * range, empty ones included (zeros, null latencies), so a chart's axis is the range itself.
 */
export function buildOverview(range: OverviewRange, sums: OverviewSums): Overview {
  const stepMs = range.bucketSeconds * 1000;
  const spansAt = new Map(sums.series.map((s) => [s.t, s]));
  const tracesAt = new Map(sums.traces.map((s) => [s.t, s.traces]));
  const series: OverviewPoint[] = [];
  for (let t = floorTo(storedBucketRange(range).from.getTime(), stepMs); t < range.toMs; t += stepMs) {
    const s = spansAt.get(t);
    series.push({
      t: toIso(t),
      traces: tracesAt.get(t) ?? 0,
      spans: s?.calls ?? 0,
      errors: s?.errors ?? 0,
      latencyP50Ms: s ? quantile(s.latency, 0.5) : null,
      latencyP95Ms: s ? quantile(s.latency, 0.95) : null,
      costUsd: s ? money(s.costUsd) : 0,
      tokens: s?.totalTokens ?? 0,
    });
  }
  const byCalls = <T extends { calls: number }>(a: T, b: T, name: (x: T) => string) => b.calls - a.calls || name(a).localeCompare(name(b));
  return {
    from: toIso(range.fromMs),
    to: toIso(range.toMs),
    bucketSeconds: range.bucketSeconds,
    series,
    models: [...sums.models]
      .sort((a, b) => byCalls(a, b, (x) => x.model))
      .map((m) => ({
        model: m.model,
        calls: m.calls,
        errors: m.errors,
        costUsd: money(m.costUsd),
        promptTokens: m.promptTokens,
        completionTokens: m.completionTokens,
        latencyP50Ms: quantile(m.latency, 0.5),
        latencyP95Ms: quantile(m.latency, 0.95),
        unpricedCalls: m.unpricedCalls,
      })),
    spanTypes: [...sums.spanTypes]
      .sort((a, b) => byCalls(a, b, (x) => x.spanType))
      .map((s) => ({ spanType: s.spanType, calls: s.calls, errors: s.errors, errorRate: ratio(s.errors, s.calls) })),
    llmCalls: sums.operations.filter((s) => isLlmCall({ type: s.spanType, operation: s.operation })).reduce((n, s) => n + s.calls, 0),
    operations: byOperation(sums.operations)
      .sort((a, b) => byCalls(a, b, (x) => x.operation))
      .map((s) => ({
        operation: s.operation || null,
        calls: s.calls,
        errors: s.errors,
        errorRate: ratio(s.errors, s.calls),
        costUsd: money(s.costUsd),
        tokens: s.totalTokens,
        latencyP50Ms: quantile(s.latency, 0.5),
        latencyP95Ms: quantile(s.latency, 0.95),
      })),
    scores: sums.scores.map((s) => ({
      name: s.name,
      source: s.source,
      count: s.scores,
      mean: ratio(s.valueSum, s.numericScores),
      passRate: ratio(s.passed, s.judged),
    })),
  };
}

/** The overview's totals over its whole range (MCP's `project_overview`): its series' points added up. */
export function overviewTotals({ series }: Pick<Overview, 'series'>) {
  const totals = { traces: 0, spans: 0, errors: 0, costUsd: 0, tokens: 0 };
  for (const p of series) {
    totals.traces += p.traces;
    totals.spans += p.spans;
    totals.errors += p.errors;
    totals.costUsd += p.costUsd;
    totals.tokens += p.tokens;
  }
  return { ...totals, costUsd: money(totals.costUsd) };
}
