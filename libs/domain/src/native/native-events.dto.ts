import { type JsonObject, type JsonValue, isJsonObject } from '../json/types';
import {
  SCORE_DATA_TYPES,
  SCORE_SOURCES,
  SPAN_LEVELS,
  SPAN_TYPE_PATTERN,
  type ScoreDataType,
  type ScoreSource,
  type SpanLevel,
} from '../telemetry/records';
import {
  type FieldRule,
  Optional,
  Required,
  UpdateOf,
  amount,
  anyJson,
  anyText,
  count,
  jsonObject,
  nested,
  oneOf,
  ruleOf,
  stringList,
  text,
  timestamp,
} from '../validation';
import { isNativeId } from '../ids';
import { MAX_NATIVE_ID_LENGTH, TELEMETRY_RANGES } from '../limits';
import { MAX_USAGE_TYPES, USAGE_TYPE_NAME } from '../telemetry/usage-details';

// The events of CONTRACT "Native batch events": one class per body, fields only through
// Required/Optional (validation/fields.ts); unknown fields are ignored.

const nativeId: FieldRule = {
  test: isNativeId,
  message: `must be a string of 1 to ${MAX_NATIVE_ID_LENGTH} characters`,
  schema: { type: 'string', minLength: 1, maxLength: MAX_NATIVE_ID_LENGTH },
};
const name = text(1, 1000);
/**
 * Filter and grouping keys (userId, sessionId, environment, model, tags…): 256 characters
 * of at most 3 UTF-8 bytes stay under Postgres' 2,704-byte btree row limit on indexed columns.
 */
const MAX_LABEL_LENGTH = 256;
const label = text(0, MAX_LABEL_LENGTH);
const spanLevel = oneOf(SPAN_LEVELS);
const spanType: FieldRule = {
  test: (v) => typeof v === 'string' && SPAN_TYPE_PATTERN.test(v),
  message: 'must be an upper-case word of at most 64 characters, such as AGENT, TOOL, LLM, RETRIEVAL, CHAIN, EMBEDDING, EVENT or CUSTOM',
  schema: { type: 'string', pattern: SPAN_TYPE_PATTERN.source },
};

export class TraceCreateBody {
  @Required(nativeId) id: string;
  @Required(name) name: string;
  @Optional(timestamp) timestamp?: string;
  @Optional(label) userId?: string;
  @Optional(label) sessionId?: string;
  @Optional(jsonObject) metadata?: JsonObject;
  @Optional(stringList(MAX_LABEL_LENGTH)) tags?: string[];
  @Optional(anyJson) input?: JsonValue;
  @Optional(anyJson) output?: JsonValue;
  @Optional(label) release?: string;
  @Optional(label) version?: string;
  @Optional(label) environment?: string;
}

/** What every span event carries, create or update alike. */
abstract class ObservationBody {
  @Required(nativeId) id: string;
  @Required(nativeId) traceId: string;
  @Optional(nativeId) parentObservationId?: string;
  @Optional(anyJson) input?: JsonValue;
  @Optional(anyJson) output?: JsonValue;
  @Optional(jsonObject) metadata?: JsonObject;
  @Optional(spanLevel) level?: SpanLevel;
}

export class SpanCreateBody extends ObservationBody {
  @Required(name) name: string;
  @Optional(spanType) type?: string;
  @Required(timestamp) startTime: string;
  @Optional(timestamp) endTime?: string;
  @Optional(anyText) statusMessage?: string;
}

export class SpanUpdateBody extends UpdateOf(ObservationBody, SpanCreateBody) {}

export class UsageBody {
  @Optional(count) input?: number;
  @Optional(count) output?: number;
  @Optional(count) total?: number;
}

/** Token counts by usage type (Langfuse's `usageDetails`): at most MAX_USAGE_TYPES names, each a count. */
const usageDetails = ruleOf(
  (value) => {
    if (!isJsonObject(value)) return 'must be an object';
    const entries = Object.entries(value);
    if (entries.length > MAX_USAGE_TYPES) return `must name at most ${MAX_USAGE_TYPES} usage types`;
    const bad = entries.find(([type, n]) => !USAGE_TYPE_NAME.test(type) || !count.test?.(n, value));
    return bad === undefined
      ? null
      : {
          path: `.${bad[0]}`,
          message: `must be a usage type of 1 to 64 letters, digits, _ . : or - with an integer from ${TELEMETRY_RANGES.spanTokens.min} to ${TELEMETRY_RANGES.spanTokens.max}`,
        };
  },
  {
    type: 'object',
    maxProperties: MAX_USAGE_TYPES,
    additionalProperties: { type: 'integer', minimum: TELEMETRY_RANGES.spanTokens.min, maximum: TELEMETRY_RANGES.spanTokens.max },
  },
);

/** A generation is an LLM span: a `type` in its body is ignored. */
export class GenerationCreateBody extends ObservationBody {
  @Required(name) name: string;
  @Required(timestamp) startTime: string;
  @Optional(timestamp) endTime?: string;
  @Optional(anyText) statusMessage?: string;
  @Optional(label) model?: string;
  @Optional(jsonObject) modelParameters?: JsonObject;
  @Optional(nested(UsageBody)) usage?: UsageBody;
  @Optional(usageDetails) usageDetails?: Record<string, number>;
  @Optional(amount) cost?: number;
}

export class GenerationUpdateBody extends UpdateOf(ObservationBody, GenerationCreateBody) {}

/** A point in time: stored as a span of type EVENT that ends when it starts. */
export class EventCreateBody extends ObservationBody {
  @Required(name) name: string;
  @Required(timestamp) startTime: string;
}

export type ScoreValue = number | string | boolean;

export function scoreDataTypeOf(value: ScoreValue): ScoreDataType {
  if (typeof value === 'number') return 'NUMERIC';
  if (typeof value === 'boolean') return 'BOOLEAN';
  return 'CATEGORICAL';
}

const isScoreValue = (v: unknown): v is ScoreValue =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** A score's own fields' rules, shared by every body that states a score (a trace's here, a dataset run's in datasets). */
export const SCORE_FIELD_RULES = {
  name,
  value: { test: isScoreValue, message: 'must be a number, a string or a boolean' } satisfies FieldRule,
  dataType: {
    test: (v, dto) => {
      const { value } = dto as { value?: unknown };
      return (
        typeof v === 'string' &&
        (SCORE_DATA_TYPES as readonly string[]).includes(v) &&
        (!isScoreValue(value) || scoreDataTypeOf(value) === v)
      );
    },
    message: `must be one of ${SCORE_DATA_TYPES.join(', ')} and agree with the value: NUMERIC for a number, CATEGORICAL for a string, BOOLEAN for a boolean`,
  } satisfies FieldRule,
  comment: anyText,
  source: oneOf(SCORE_SOURCES),
};

/** Also the body of POST /api/v1/scores (CONTRACT "Scores"). */
export class ScoreBody {
  @Optional(nativeId) id?: string;
  @Required(nativeId) traceId: string;
  @Optional(nativeId) spanId?: string;
  @Required(SCORE_FIELD_RULES.name) name: string;
  @Required(SCORE_FIELD_RULES.value) value: ScoreValue;
  @Optional(SCORE_FIELD_RULES.dataType) dataType?: ScoreDataType;
  @Optional(SCORE_FIELD_RULES.comment) comment?: string;
  @Optional(jsonObject) metadata?: JsonObject;
  @Optional(SCORE_FIELD_RULES.source) source?: ScoreSource;
}

/** Accepted and not stored. */
export class SdkLogBody {
  @Optional(anyJson) log?: JsonValue;
}

export const NATIVE_EVENT_BODIES = {
  'trace-create': TraceCreateBody,
  'span-create': SpanCreateBody,
  'span-update': SpanUpdateBody,
  'generation-create': GenerationCreateBody,
  'generation-update': GenerationUpdateBody,
  'event-create': EventCreateBody,
  'score-create': ScoreBody,
  'sdk-log': SdkLogBody,
} as const;

export type NativeEventType = keyof typeof NATIVE_EVENT_BODIES;
export type NativeEventBody<T extends NativeEventType> = InstanceType<(typeof NATIVE_EVENT_BODIES)[T]>;
export const NATIVE_EVENT_TYPES = Object.keys(NATIVE_EVENT_BODIES) as NativeEventType[];

/** Whether an event of this type creates or changes a span: what counts as an accepted span. */
export function writesSpan(type: NativeEventType): boolean {
  switch (type) {
    case 'span-create':
    case 'span-update':
    case 'generation-create':
    case 'generation-update':
    case 'event-create':
      return true;
    case 'trace-create':
    case 'score-create':
    case 'sdk-log':
      return false;
  }
}

/** One element of `batch` (SPEC 4.1): every part required. */
export class NativeEventEnvelope {
  @Required(nativeId) id: string;
  @Required(oneOf(NATIVE_EVENT_TYPES)) type: NativeEventType;
  @Required(timestamp) timestamp: string;
  @Required(jsonObject) body: JsonObject;
}
