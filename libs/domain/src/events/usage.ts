import { USAGE_METRICS, type UsageMetric } from '../quota';
import { type FieldRule, Required, oneOf, positiveInteger, uuidShaped } from '../validation';
import { readMessage } from './read-message';

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

const MONTH: FieldRule = {
  test: (v) => typeof v === 'string' && /^\d{4}-\d{2}$/.test(v),
  message: 'must be a month, 2026-11',
  schema: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
};

class UsageCountedFields implements UsageCounted {
  @Required(uuidShaped) id: string;
  @Required(uuidShaped) orgId: string;
  @Required(oneOf(USAGE_METRICS)) metric: UsageMetric;
  @Required(positiveInteger) n: number;
  @Required(MONTH) month: string;
  @Required(oneOf(['live'])) source: 'live';
}

export const parseUsageCounted = (value: unknown): UsageCounted => readMessage(UsageCountedFields, value, `not a ${USAGE_SCHEMA} message`);
