/** The monitor form's fields as `monitor.create|update` take them, and how a monitor reads. Pure. */
import { MONITOR_LIMITS, isScoreMetric } from '@app/domain/monitors/monitor-terms';
import type { Outputs } from '../rpc';

export interface MonitorFormValues {
  name: string;
  metric: string;
  scoreName: string;
  model: string;
  spanType: string;
  traceName: string;
  operation: string;
  /** The window in minutes, as typed. */
  windowMinutes: string;
  comparison: string;
  threshold: string;
  enabled: boolean;
}

/** A monitor as `monitor.list` answers it. */
export type Monitor = Outputs['monitor']['list'][number];

export const EMPTY_MONITOR: MonitorFormValues = {
  name: '',
  metric: 'latency_p95',
  scoreName: '',
  model: '',
  spanType: '',
  traceName: '',
  operation: '',
  windowMinutes: String(MONITOR_LIMITS.minWindowSeconds / 60),
  comparison: '>',
  threshold: '',
  enabled: true,
};

export const monitorValuesOf = (m: Monitor): MonitorFormValues => ({
  name: m.name,
  metric: m.metric,
  scoreName: m.scoreName ?? '',
  model: m.filter.model ?? '',
  spanType: m.filter.spanType ?? '',
  traceName: m.filter.traceName ?? '',
  operation: m.filter.operation ?? '',
  windowMinutes: String(m.windowSeconds / 60),
  comparison: m.comparison,
  threshold: String(m.threshold),
  enabled: m.enabled,
});

/** A blank box sends nothing, a number that does not read is sent as it is: the server's rules decide and name the field. */
const numberOf = (s: string): number | string => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);

/**
 * The input the RPC takes. The filter is sent whole (an update replaces it); a score name only
 * with a score metric, which is the only kind that takes one.
 */
export function toMonitorInput(v: MonitorFormValues) {
  const filter = Object.fromEntries(
    (['model', 'spanType', 'operation', 'traceName'] as const).map((k) => [k, v[k].trim()] as const).filter(([, value]) => value !== ''),
  );
  const minutes = numberOf(v.windowMinutes);
  return {
    name: v.name.trim(),
    metric: v.metric,
    ...(isScoreMetric(v.metric) ? { scoreName: v.scoreName.trim() } : {}),
    filter,
    windowSeconds: typeof minutes === 'number' ? minutes * 60 : minutes,
    comparison: v.comparison,
    threshold: numberOf(v.threshold),
    enabled: v.enabled,
  };
}

/** A window in its largest whole unit: "5 min", "1 h", "7 d". */
export function windowText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  return `${seconds / 60} min`;
}

/** The filter as one phrase: "model gpt-4o, trace chat", or "all" without one. */
export function filterText(filter: Monitor['filter']): string {
  const parts = [
    filter.model && `model ${filter.model}`,
    filter.spanType && `span type ${filter.spanType}`,
    filter.operation && `operation ${filter.operation}`,
    filter.traceName && `trace ${filter.traceName}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'all';
}

/** A metric with the score it is about: "score_mean (helpfulness)". */
export const metricText = (m: Pick<Monitor, 'metric' | 'scoreName'>): string => (m.scoreName ? `${m.metric} (${m.scoreName})` : m.metric);

/** A monitor's value or threshold: latencies in ms, the rest as numbers of up to 4 significant digits. */
export function monitorNumber(metric: string, n: number | null): string {
  if (n === null) return '–';
  const text = String(Number(n.toPrecision(4)));
  return metric === 'latency_p95' ? `${text} ms` : text;
}
