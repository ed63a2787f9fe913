import { isUuidShaped } from '../ids';
import { USAGE_METRICS, type UsageMetric } from '../quota';

/** The USAGE stream's one message schema (DESIGN "Streams"). */
export const USAGE_SCHEMA = 'usage.counted/v1';

export interface UsageCounted {
  /** Unique per count; the usage projection applies each id once. */
  id: string;
  orgId: string;
  metric: UsageMetric;
  n: number;
  /** UTC month, `2026-11`. */
  month: string;
  /** Only live projection counts; a rebuild never does. */
  source: 'live';
}


export function parseUsageCounted(value: unknown): UsageCounted {
  const e = value as Partial<UsageCounted> | null;
  if (
    !e || typeof e !== 'object' || !isUuidShaped(e.id) || !isUuidShaped(e.orgId) ||
    !(USAGE_METRICS as readonly unknown[]).includes(e.metric) || !Number.isSafeInteger(e.n) || (e.n as number) <= 0 ||
    typeof e.month !== 'string' || !/^\d{4}-\d{2}$/.test(e.month) || e.source !== 'live'
  ) {
    throw new Error(`not a ${USAGE_SCHEMA} message`);
  }
  return { id: e.id, orgId: e.orgId, metric: e.metric as UsageMetric, n: e.n as number, month: e.month, source: 'live' };
}
