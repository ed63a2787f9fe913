import { validationError } from '../errors';
import { isStorableText, UNSTORABLE_TEXT } from '../json/sanitize';
import { isJsonObject } from '../json/types';
import { Optional, Required, type FieldRule, validateDto } from '../validation';

/** `trace.filterValues`: the known values of one trace-list filter, for the dashboard's pickers. */
export const FILTER_VALUE_FIELDS = ['name', 'spanType', 'operation', 'model', 'tags', 'userId', 'sessionId', 'environment'] as const;
export type FilterValueField = (typeof FILTER_VALUE_FIELDS)[number];

export const FILTER_VALUE_LIMITS = {
  /** Values in one answer, at most. */
  limit: { min: 1, max: 50, default: 20 },
  /** Newest traces whose user, session, environment or tags are read: bounded whatever the project's size. */
  recentTraces: 5000,
  /** Days of 5-minute span stats whose types, operations and models are read. */
  statsDays: 30,
} as const;

const fieldName: FieldRule = {
  test: (v) => typeof v === 'string' && (FILTER_VALUE_FIELDS as readonly string[]).includes(v),
  message: `must be one of ${FILTER_VALUE_FIELDS.join(', ')}`,
};

const prefixText: FieldRule = {
  test: (v) => typeof v === 'string' && v.length <= 256 && isStorableText(v),
  message: `must be a string of at most 256 characters that ${UNSTORABLE_TEXT.replace('must', 'does')}`,
};

const limitRule: FieldRule = {
  test: (v) => Number.isInteger(v) && (v as number) >= FILTER_VALUE_LIMITS.limit.min && (v as number) <= FILTER_VALUE_LIMITS.limit.max,
  message: `must be an integer from ${FILTER_VALUE_LIMITS.limit.min} to ${FILTER_VALUE_LIMITS.limit.max}`,
};

class FilterValuesFields {
  @Required(fieldName) field: FilterValueField;
  /** Part of the value, any case. */
  @Optional(prefixText) prefix?: string;
  @Optional(limitRule) limit?: number;
}

export interface FilterValuesQuery {
  field: FilterValueField;
  /** Lower-cased part of the value to look for; absent, any value. */
  contains?: string;
  limit: number;
}

/** The query past its projectId: field, prefix (matched case-insensitively anywhere in the value), limit. */
export function validateFilterValuesQuery(input: unknown): FilterValuesQuery {
  if (!isJsonObject(input)) throw validationError('query must be an object');
  const checked = validateDto(FilterValuesFields, input, '');
  if (!checked.ok) throw validationError(checked.message);
  const q = checked.value;
  return { field: q.field, contains: q.prefix ? q.prefix.toLowerCase() : undefined, limit: q.limit ?? FILTER_VALUE_LIMITS.limit.default };
}

/** SPEC's span types are upper-case words: the filter reads `llm` as `LLM`. */
export const normalizeSpanType = (value: string): string => value.toUpperCase();
