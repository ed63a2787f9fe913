/**
 * The building blocks of every convention table: what a span offers a rule (`SpanView`), what
 * a rule answers (`Found`: a value and the attributes it was read from), and small total
 * readers that turn one attribute, a family of flattened attributes or a span event into a
 * value. A reader answers undefined, never throws, for anything it cannot read.
 */
// From their modules, not the barrel: a barrel import is read through a getter on every call (issue 25).
import { MAX_JSON_DEPTH, TELEMETRY_RANGES } from '@app/domain/limits';
import { type JsonObject, type JsonValue, isJsonObject } from '@app/domain/json/types';
import { jsonDepthExceeds } from '@app/domain/json/depth';
import { parseJsonSafely } from '@app/domain/json/parse';
import { sanitizeJson } from '@app/domain/json/sanitize';
import { setOwn } from '@app/domain/json/set-own';
import { doubleOf } from '../otlp-wire';

/** A span event as conventions read it: its name and decoded attributes (or a log record's body and attributes). */
export interface EventView {
  name: string;
  attributes: JsonObject;
  /** A log record's body; span events have none. */
  body?: JsonValue;
}

/** What a rule may look at: the span's decoded attributes, its events, and its resource's attributes. */
export interface SpanView {
  attributes: JsonObject;
  events: readonly EventView[];
  resource: JsonObject;
}

/** A value a rule found, and where: attribute keys, `event <name>` for span events. */
export interface Found<T extends JsonValue = JsonValue> {
  value: T;
  from: string[];
}

/**
 * One way of finding one field's value. A rule with `keys` finds nothing on a span whose
 * attributes hold none of them, so `mapSpan` does not ask it there (issue 25: most of the
 * rules read keys a span does not have).
 */
export type Rule<T extends JsonValue = JsonValue> = ((span: SpanView) => Found<T> | undefined) & { readonly keys?: readonly string[] };

/** `find` as a rule that finds nothing without one of `keys` among the span's attributes. */
export const keyed = <T extends JsonValue>(keys: readonly string[], find: (span: SpanView) => Found<T> | undefined): Rule<T> =>
  Object.assign(find, { keys });

/**
 * Filter and grouping values (userId, sessionId, environment, model, tags) have the same
 * bound as in the native batch: longer values would break the btree indexes on them, so
 * they are not mapped (they stay in `attributes` / `metadata`).
 */
export const MAX_LABEL_LENGTH = 256;

export const has = (attributes: JsonObject, key: string): boolean => Object.hasOwn(attributes, key);
export const get = (attributes: JsonObject, key: string): JsonValue | undefined => (has(attributes, key) ? attributes[key] : undefined);

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

/** Any value but null (proto3's empty value), as sent. */
export const sentOf = (value: JsonValue | undefined): JsonValue | undefined => value ?? undefined;

/** Any value that says something: null and the empty string say nothing. */
export const presentOf = (value: JsonValue | undefined): JsonValue | undefined => (value === null || value === '' ? undefined : value);

/**
 * Conventions send structured content as JSON text in a stringValue. Text that is a JSON
 * object or array becomes that value, so messages stay an array of messages; any other text
 * (prose, a number, a quoted string) stays the text the library sent. Parsed with the
 * ingestion's own guards: bounded depth, no `__proto__`/`constructor` keys, text made safe
 * for Postgres.
 */
export function structuredOf(value: JsonValue | undefined): JsonValue | undefined {
  const present = presentOf(value);
  if (typeof present !== 'string') return present;
  const first = present.trimStart()[0];
  if (first !== '{' && first !== '[') return present;
  // Text that opens like JSON but does not close like it (prose after a JSON prefix) would make
  // the parser throw, which costs far more than looking at its last character.
  const last = present.trimEnd().at(-1);
  if (last !== '}' && last !== ']') return present;
  if (jsonDepthExceeds(Buffer.from(present), MAX_JSON_DEPTH)) return present;
  try {
    return sanitizeJson(parseJsonSafely(present, 'remove') as JsonValue);
  } catch {
    return present;
  }
}

/** An object, sent as a kvlist or as JSON text. */
export function objectOf(value: JsonValue | undefined): JsonObject | undefined {
  const structured = structuredOf(value);
  return isJsonObject(structured) && Object.keys(structured).length > 0 ? structured : undefined;
}

/** A list of labels (tags), sent as a string array or as JSON text of one; other items are dropped. */
export function labelsOf(value: JsonValue | undefined): string[] | undefined {
  const structured = structuredOf(value);
  if (!Array.isArray(structured)) return undefined;
  const labels = structured.map(labelOf).filter((label): label is string => label !== undefined);
  return labels.length > 0 ? [...new Set(labels)] : undefined;
}

/** A rule reading one span attribute with `read`. */
export const attribute = <T extends JsonValue>(key: string, read: (value: JsonValue | undefined) => T | undefined): Rule<T> =>
  keyed([key], ({ attributes }) => {
    if (!has(attributes, key)) return undefined;
    const value = read(attributes[key]);
    return value === undefined ? undefined : { value, from: [key] };
  });

/** The rule only where `applies` holds for the span, e.g. one kind of operation. */
export const onlyWhere = <T extends JsonValue>(applies: (span: SpanView) => boolean, rule: Rule<T>): Rule<T> => {
  const only = (span: SpanView) => (applies(span) ? rule(span) : undefined);
  return rule.keys ? keyed(rule.keys, only) : only;
};

/** Flattened keys deeper than this keep the rest of their path as one key: a key is data, and its dots must not nest without bound. */
const MAX_FLATTENED_DEPTH = 8;
const INDEX = /^\d{1,6}$/;

/**
 * Objects whose keys are all list indices become arrays in index order (gaps dropped), so
 * `tool_calls.0.…` and `contents.1.…` come back as the lists they were flattened from.
 */
function listsRestored(value: JsonValue): JsonValue {
  if (!isJsonObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length > 0 && keys.every((k) => INDEX.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => listsRestored(value[k]));
  }
  const out: JsonObject = {};
  for (const k of keys) setOwn(out, k, listsRestored(value[k]));
  return out;
}

/**
 * Attributes flattened under `prefix` (`llm.input_messages.0.message.role`,
 * `gen_ai.prompt.1.content`) as the list they were flattened from: item i holds the keys
 * after `<prefix>.<i>.`, nested by their dots. Found with every key it read, in key order.
 */
export function flattenedListOf(attributes: JsonObject, prefix: string): Found<JsonValue[]> | undefined {
  const root: JsonObject = {};
  const from: string[] = [];
  const dotted = `${prefix}.`;
  for (const key of Object.keys(attributes)) {
    if (!key.startsWith(dotted)) continue;
    const value = attributes[key];
    const path = key.slice(dotted.length).split('.');
    if (!INDEX.test(path[0]) || path.length < 2) continue;
    const segments =
      path.length > MAX_FLATTENED_DEPTH ? [...path.slice(0, MAX_FLATTENED_DEPTH - 1), path.slice(MAX_FLATTENED_DEPTH - 1).join('.')] : path;
    let node = root;
    for (const segment of segments.slice(0, -1)) {
      const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (!isJsonObject(next)) setOwn(node, segment, {});
      node = node[segment] as JsonObject;
    }
    setOwn(node, segments[segments.length - 1], value);
    from.push(key);
  }
  if (from.length === 0) return undefined;
  const list = listsRestored(root);
  return Array.isArray(list) ? { value: list, from: from.sort() } : undefined;
}

/** Attributes under `prefix.` as one object keyed by the rest of their key (`langfuse.trace.metadata.feature` → `{feature}`). */
export function prefixedObjectOf(attributes: JsonObject, prefix: string): Found<JsonObject> | undefined {
  const value: JsonObject = {};
  const from: string[] = [];
  const dotted = `${prefix}.`;
  for (const key of Object.keys(attributes)) {
    if (!key.startsWith(dotted) || key.length === dotted.length) continue;
    setOwn(value, key.slice(dotted.length), attributes[key]);
    from.push(key);
  }
  return from.length > 0 ? { value, from } : undefined;
}
