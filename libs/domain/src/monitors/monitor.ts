import { validationError } from '../errors';
import { isJsonObject } from '../json/types';
import { histogramCount, latencyQuantile } from '../model-stats/latency-histogram';
import { Optional, Required, nested, oneOf, storedText, validateDto } from '../validation';
import type { ScoreSums, SpanSums, StatsFilter } from '../stats/overview';
import {
  MONITOR_COMPARISONS,
  MONITOR_LIMITS,
  MONITOR_METRICS,
  type MonitorComparison,
  type MonitorMetric,
  type MonitorState,
  RATE_METRICS,
  SCORE_METRICS,
} from './monitor-terms';

export {
  MONITOR_COMPARISONS,
  MONITOR_LIMITS,
  MONITOR_METRICS,
  MONITOR_STATES,
  type MonitorComparison,
  type MonitorMetric,
  type MonitorState,
  isScoreMetric,
} from './monitor-terms';

class MonitorFilterInput {
  @Optional(storedText(1, MONITOR_LIMITS.filterValue)) model?: string;
  @Optional(storedText(1, MONITOR_LIMITS.filterValue)) spanType?: string;
  @Optional(storedText(1, MONITOR_LIMITS.filterValue)) traceName?: string;
  @Optional(storedText(1, MONITOR_LIMITS.filterValue)) operation?: string;
}

const windowRule = {
  test: (v: unknown) =>
    Number.isInteger(v) &&
    (v as number) >= MONITOR_LIMITS.minWindowSeconds &&
    (v as number) <= MONITOR_LIMITS.maxWindowSeconds &&
    (v as number) % MONITOR_LIMITS.windowStepSeconds === 0,
  message: `must be a whole number of seconds from ${MONITOR_LIMITS.minWindowSeconds} (5 minutes) to ${MONITOR_LIMITS.maxWindowSeconds} (7 days), a multiple of ${MONITOR_LIMITS.windowStepSeconds}`,
};

class MonitorInput {
  @Required(storedText(1, MONITOR_LIMITS.name)) name: string;
  @Required(oneOf(MONITOR_METRICS)) metric: MonitorMetric;
  @Optional(storedText(1, MONITOR_LIMITS.scoreName)) scoreName?: string;
  @Optional(nested(MonitorFilterInput)) filter?: MonitorFilterInput;
  @Required(windowRule) windowSeconds: number;
  @Required(oneOf(MONITOR_COMPARISONS)) comparison: MonitorComparison;
  @Required({ test: (v) => typeof v === 'number' && Number.isFinite(v), message: 'must be a finite number' }) threshold: number;
  @Optional({ test: (v) => typeof v === 'boolean', message: 'must be true or false' }) enabled?: boolean;
}

/** A monitor as configured: what the API stores and the processor evaluates. */
export interface MonitorSettings {
  name: string;
  metric: MonitorMetric;
  /** The score a score metric is about; null for the others. */
  scoreName: string | null;
  filter: StatsFilter;
  windowSeconds: number;
  comparison: MonitorComparison;
  threshold: number;
  enabled: boolean;
}

/** The fields a client may send for a monitor, and nothing else, so a misspelt field is refused by name. */
const MONITOR_FIELDS = ['name', 'metric', 'scoreName', 'filter', 'windowSeconds', 'comparison', 'threshold', 'enabled'];
const FILTER_FIELDS = ['model', 'spanType', 'traceName', 'operation'];

function refuseUnknown(input: Record<string, unknown>, known: string[], path: string): void {
  const unknown = Object.keys(input).find((k) => !known.includes(k));
  if (unknown !== undefined) throw validationError(`${path}.${unknown}: is not a monitor field (${known.join(', ')})`);
}

/**
 * Checks a whole monitor (`monitor.create`, or `monitor.update`'s fields laid over the stored
 * monitor), naming the first field at fault under `input`.
 */
export function validateMonitorInput(input: unknown): MonitorSettings {
  if (!isJsonObject(input)) throw validationError('input must be an object');
  refuseUnknown(input, MONITOR_FIELDS, 'input');
  if (isJsonObject(input.filter)) refuseUnknown(input.filter, FILTER_FIELDS, 'input.filter');
  const checked = validateDto(MonitorInput, input, 'input');
  if (!checked.ok) throw validationError(checked.message);
  const m = checked.value;
  const filter: StatsFilter = {};
  if (m.filter?.model !== undefined) filter.model = m.filter.model;
  if (m.filter?.spanType !== undefined) filter.spanType = m.filter.spanType;
  if (m.filter?.traceName !== undefined) filter.traceName = m.filter.traceName;
  if (m.filter?.operation !== undefined) filter.operation = m.filter.operation;
  const isScore = SCORE_METRICS.includes(m.metric);
  if (isScore && m.scoreName === undefined) throw validationError(`input.scoreName: is required for the metric ${m.metric}`);
  if (!isScore && m.scoreName !== undefined)
    throw validationError(`input.scoreName: applies only to the metrics ${SCORE_METRICS.join(', ')}`);
  // Scores are counted per trace name, not per span: a model, span type or operation filter would be ignored, so it is refused.
  for (const field of ['model', 'spanType', 'operation'] as const) {
    if (isScore && filter[field] !== undefined)
      throw validationError(`input.filter.${field}: does not apply to the metric ${m.metric} (only filter.traceName does)`);
  }
  if (RATE_METRICS.includes(m.metric) && (m.threshold < 0 || m.threshold > 1))
    throw validationError(`input.threshold: must be from 0 to 1 for the rate ${m.metric}`);
  return {
    name: m.name,
    metric: m.metric,
    scoreName: m.scoreName ?? null,
    filter,
    windowSeconds: m.windowSeconds,
    comparison: m.comparison,
    threshold: m.threshold,
    enabled: m.enabled ?? true,
  };
}

/** A monitor's settings in the client's shape, for laying an update's fields over. */
export function monitorInputOf(s: MonitorSettings): Record<string, unknown> {
  return {
    name: s.name,
    metric: s.metric,
    ...(s.scoreName === null ? {} : { scoreName: s.scoreName }),
    filter: { ...s.filter },
    windowSeconds: s.windowSeconds,
    comparison: s.comparison,
    threshold: s.threshold,
    enabled: s.enabled,
  };
}

/** The window a round evaluates: whole 5-minute buckets of event time, ending `settleMs` or more before now. */
export function evaluationWindow(nowMs: number, windowSeconds: number, settleMs: number): { from: Date; to: Date } {
  const step = MONITOR_LIMITS.windowStepSeconds * 1000;
  const to = Math.floor((nowMs - settleMs) / step) * step;
  return { from: new Date(to - windowSeconds * 1000), to: new Date(to) };
}

/** The stats of a monitor's window, as the read model sums them. */
export interface WindowSums {
  spans: SpanSums | null;
  scores: (ScoreSums & { name: string; source: string })[];
}

const ratio = (n: number, d: number): number | null => (d > 0 ? Number((n / d).toPrecision(12)) : null);

/**
 * The metric's value over the window. Calls, cost and unpriced spans are 0 on a quiet window (a
 * drop to zero is worth an alert); a rate, a latency or a score mean has no value without calls or
 * scores. `unpriced_spans` counts the spans with usage the price table could not price, so
 * `> 0` tells a team a new model (or usage type) arrived without a price.
 */
export function monitorValue(metric: MonitorMetric, scoreName: string | null, sums: WindowSums): number | null {
  const spans = sums.spans;
  switch (metric) {
    case 'calls':
      return spans?.calls ?? 0;
    case 'cost':
      return spans ? Number(spans.costUsd.toPrecision(12)) : 0;
    case 'unpriced_spans':
      return spans?.unpricedCalls ?? 0;
    case 'error_rate':
      return spans ? ratio(spans.errors, spans.calls) : null;
    case 'latency_p95': {
      const v = spans && histogramCount(spans.latency) ? latencyQuantile(spans.latency, 0.95) : null;
      return v === null ? null : Math.round(v * 100) / 100;
    }
    case 'score_mean':
    case 'score_pass_rate': {
      const named = sums.scores.filter((s) => s.name === scoreName);
      const sum = (f: (s: ScoreSums) => number) => named.reduce((n, s) => n + f(s), 0);
      return metric === 'score_mean'
        ? ratio(
            sum((s) => s.valueSum),
            sum((s) => s.numericScores),
          )
        : ratio(
            sum((s) => s.passed),
            sum((s) => s.judged),
          );
    }
  }
}

export function monitorStateOf(value: number | null, comparison: MonitorComparison, threshold: number): MonitorState {
  if (value === null) return 'NO_DATA';
  switch (comparison) {
    case '>':
      return value > threshold ? 'ALERT' : 'OK';
    case '>=':
      return value >= threshold ? 'ALERT' : 'OK';
    case '<':
      return value < threshold ? 'ALERT' : 'OK';
    case '<=':
      return value <= threshold ? 'ALERT' : 'OK';
  }
}
