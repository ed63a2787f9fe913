/**
 * A monitor's vocabulary and bounds (issue 16), apart from the rules that check them so that
 * the dashboard can import them: nothing here needs Node or a decorator.
 */

/** What a monitor watches (issue 16). */
export const MONITOR_METRICS = ['error_rate', 'latency_p95', 'cost', 'calls', 'score_mean', 'score_pass_rate', 'unpriced_spans'] as const;
export type MonitorMetric = (typeof MONITOR_METRICS)[number];
export const MONITOR_COMPARISONS = ['>', '>=', '<', '<='] as const;
export type MonitorComparison = (typeof MONITOR_COMPARISONS)[number];
export const MONITOR_STATES = ['OK', 'ALERT', 'NO_DATA'] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];

export const SCORE_METRICS: readonly MonitorMetric[] = ['score_mean', 'score_pass_rate'];

/** Whether a value names a metric measured on scores (which takes a `scoreName`). */
export const isScoreMetric = (metric: unknown): boolean => (SCORE_METRICS as readonly unknown[]).includes(metric);
export const RATE_METRICS: readonly MonitorMetric[] = ['error_rate', 'score_pass_rate'];

export const MONITOR_LIMITS = {
  /** The stats' bucket: windows are whole numbers of it. */
  windowStepSeconds: 300,
  minWindowSeconds: 300,
  maxWindowSeconds: 7 * 86_400,
  name: 200,
  /** A filter value's length: the stats keep dimensions to 256 characters. */
  filterValue: 256,
  scoreName: 256,
  perProject: 100,
  historyPage: 50,
} as const;
