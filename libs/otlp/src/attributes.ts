/**
 * OTLP attributes to plain JSON, the form spans keep them in (`attributes`) and traces keep
 * resource attributes in (`metadata`), CONTRACT "OTLP". Small total functions that build on
 * each other: decodeAttributes → decodeKeyValue → decodeAnyValue. Every string and key is
 * made safe for Postgres on the way.
 */
// From their modules, not the barrel: a barrel import is read through a getter on every call (issue 25).
import { MAX_JSON_DEPTH } from '@app/domain/limits';
import { type JsonObject, type JsonValue, isJsonObject } from '@app/domain/json/types';
import { sanitizeText } from '@app/domain/json/sanitize';
import { setOwn } from '@app/domain/json/set-own';
import { doubleOf, int64Of, isBase64 } from './otlp-wire';

/**
 * One AnyValue as JSON: strings, numbers (an int64 beyond 2^53 stays a decimal string),
 * booleans, arrays, objects for kvlists, base64 text for bytes; an empty or unreadable value
 * is null. A oneof with several members set takes the first in proto field order.
 * `depth` bounds the recursion for unvalidated input; the validator refuses deeper values.
 */
export function decodeAnyValue(value: unknown, depth = 0): JsonValue {
  if (!isJsonObject(value) || depth > MAX_JSON_DEPTH) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.stringValue === 'string') return sanitizeText(v.stringValue);
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.intValue !== undefined && v.intValue !== null) return int64Of(v.intValue);
  if (v.doubleValue !== undefined && v.doubleValue !== null) return doubleOf(v.doubleValue);
  if (isJsonObject(v.arrayValue)) {
    const values = (v.arrayValue as Record<string, unknown>).values;
    return Array.isArray(values) ? values.map((item) => decodeAnyValue(item, depth + 1)) : [];
  }
  if (isJsonObject(v.kvlistValue)) return decodeAttributes((v.kvlistValue as Record<string, unknown>).values, depth + 1);
  if (isBase64(v.bytesValue)) return v.bytesValue;
  return null;
}

/** One KeyValue as a `[key, value]` entry, or null without a string key. */
export function decodeKeyValue(keyValue: unknown, depth = 0): [string, JsonValue] | null {
  if (!isJsonObject(keyValue) || typeof keyValue.key !== 'string') return null;
  return [sanitizeText(keyValue.key), decodeAnyValue(keyValue.value, depth)];
}

/** A KeyValue list as an object from key to value; a repeated key takes the last value, as JSON and jsonb do. */
export function decodeAttributes(list: unknown, depth = 0): JsonObject {
  const out: JsonObject = {};
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    const entry = decodeKeyValue(item, depth);
    if (entry) setOwn(out, entry[0], entry[1]);
  }
  return out;
}
