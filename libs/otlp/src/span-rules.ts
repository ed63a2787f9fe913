/**
 * The mapping rules of SPEC §2.2 and §2.3 and CONTRACT "OTLP", over decoded attributes.
 * Pure: attributes in, field values out; an attribute of the wrong type sets nothing.
 */
import { type JsonObject, type JsonValue, SPAN_TYPE_PATTERN, type SpanFields, TELEMETRY_RANGES, type TraceFields } from '@app/domain';
import { setOwn } from './attributes';
import { doubleOf } from './otlp-wire';

/** SPEC 2.2: the attributes that fill span fields. */
export const GEN_AI = {
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cost: 'gen_ai.usage.cost',
  prompt: 'gen_ai.prompt',
  completion: 'gen_ai.completion',
  requestPrefix: 'gen_ai.request.',
} as const;

/** SPEC 2.3 and CONTRACT "OTLP": the other attribute keys with a meaning. */
export const KEYS = {
  spanType: 'platform.span.type',
  toolName: 'tool.name',
  rpcMethod: 'rpc.method',
  dbSystem: 'db.system',
  dbStatement: 'db.statement',
  serviceName: 'service.name',
  userId: 'user.id',
  sessionId: 'session.id',
  conversationId: 'gen_ai.conversation.id',
  environment: 'deployment.environment.name',
  legacyEnvironment: 'deployment.environment',
} as const;

/**
 * Filter and grouping values (userId, sessionId, environment, model, tags) have the same
 * bound as in the native batch: longer values would break the btree indexes on them, so
 * they are not mapped (they stay in `attributes` / `metadata`).
 */
export const MAX_LABEL_LENGTH = 256;

const has = (attributes: JsonObject, key: string): boolean => Object.hasOwn(attributes, key);
const get = (attributes: JsonObject, key: string): JsonValue | undefined => (has(attributes, key) ? attributes[key] : undefined);

/** A label from a string; empty or too long sets nothing. */
export function labelOf(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_LABEL_LENGTH ? value : undefined;
}

/** An id label (`user.id`, `session.id`), which some SDKs send as an intValue: numbers as decimal text. */
export const idLabelOf = (value: JsonValue | undefined): string | undefined => labelOf(typeof value === 'number' ? String(value) : value);

/*
 * Token counts and costs outside TELEMETRY_RANGES set no field, like a malformed value: the
 * export is not refused for one attribute, and the value stays in the span's `attributes`.
 */

/** A token count: an integer in TELEMETRY_RANGES.spanTokens (an intValue, or digits in a stringValue). */
export function countOf(value: JsonValue | undefined): number | undefined {
  const n = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  const { min, max } = TELEMETRY_RANGES.spanTokens;
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}

/** A cost: a number in TELEMETRY_RANGES.spanCost (a doubleValue or intValue, or a numeric stringValue). */
export function amountOf(value: JsonValue | undefined): number | undefined {
  const n = typeof value === 'string' ? doubleOf(value) : value;
  const { min, max } = TELEMETRY_RANGES.spanCost;
  return typeof n === 'number' && n >= min && n <= max ? n : undefined;
}

/**
 * SPEC 2.3, first matching row wins. `platform.span.type` is taken upper-cased when it is one
 * word, the shape native span types have; any other value does not match the row, so a
 * malformed type cannot reach the `type` column. The other rows test span attribute keys
 * only: a resource attribute says nothing about one span.
 */
export function spanTypeOf(attributes: JsonObject): string {
  const explicit = get(attributes, KEYS.spanType);
  if (typeof explicit === 'string' && SPAN_TYPE_PATTERN.test(explicit.trim().toUpperCase())) return explicit.trim().toUpperCase();
  for (const key of Object.keys(attributes)) {
    if (key.startsWith('gen_ai.') || key.startsWith('llm.')) return 'LLM';
  }
  if (has(attributes, KEYS.toolName) || has(attributes, KEYS.rpcMethod)) return 'TOOL';
  if (has(attributes, KEYS.dbSystem) || has(attributes, KEYS.dbStatement)) return 'RETRIEVAL';
  return 'CUSTOM';
}

/**
 * `gen_ai.request.*` besides the model (temperature, max_tokens, top_p…) as the span's
 * `modelParameters`, keyed without the prefix, as a native generation carries them.
 * Not in SPEC 2.2; absent when there are none.
 */
export function modelParametersOf(attributes: JsonObject): JsonObject | undefined {
  let parameters: JsonObject | undefined;
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(GEN_AI.requestPrefix) || key === GEN_AI.requestModel) continue;
    parameters ??= {};
    setOwn(parameters, key.slice(GEN_AI.requestPrefix.length), value);
  }
  return parameters;
}

/** The span fields of SPEC 2.2 a span's attributes fill; absent attributes leave fields absent. */
export function genAiFieldsOf(attributes: JsonObject): Partial<SpanFields> {
  const promptTokens = countOf(get(attributes, GEN_AI.inputTokens));
  const completionTokens = countOf(get(attributes, GEN_AI.outputTokens));
  return {
    // The requested model names what the caller chose; the response model is often a dated variant.
    model: labelOf(get(attributes, GEN_AI.requestModel)) ?? labelOf(get(attributes, GEN_AI.responseModel)),
    modelParameters: modelParametersOf(attributes),
    promptTokens,
    completionTokens,
    totalTokens: promptTokens !== undefined && completionTokens !== undefined ? promptTokens + completionTokens : undefined,
    cost: amountOf(get(attributes, GEN_AI.cost)),
    input: get(attributes, GEN_AI.prompt),
    output: get(attributes, GEN_AI.completion),
  };
}

/**
 * CONTRACT "OTLP": the trace fields carried by attributes. Keys are tried in order, each on
 * the span first (the more specific source), then on the resource.
 */
export function traceLabelsOf(span: JsonObject, resource: JsonObject): Pick<Partial<TraceFields>, 'userId' | 'sessionId' | 'environment'> {
  const first = (...keys: string[]): string | undefined => {
    for (const key of keys) {
      const value = idLabelOf(get(span, key)) ?? idLabelOf(get(resource, key));
      if (value !== undefined) return value;
    }
    return undefined;
  };
  return {
    userId: first(KEYS.userId),
    sessionId: first(KEYS.sessionId, KEYS.conversationId),
    environment: first(KEYS.environment, KEYS.legacyEnvironment),
  };
}

/** SPEC 2.1: the `service:<service.name>` tag, when the resource names its service. */
export function resourceTagsOf(resource: JsonObject): string[] | undefined {
  const service = labelOf(get(resource, KEYS.serviceName));
  return service === undefined ? undefined : [`service:${service}`];
}
