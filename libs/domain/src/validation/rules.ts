import { validate as isUuid } from 'uuid';
import isEmail from 'validator/lib/isEmail';
import { UUID_SHAPE_PATTERN, isUuidShaped } from '../ids';
import { UNSTORABLE_TEXT, isStorableText } from '../json/sanitize';
import { isJsonObject } from '../json/types';
import { TELEMETRY_RANGES } from '../limits';
import { TIMESTAMP_RULE, parseTimestamp, toIso } from '../time';
import { type DtoClass, type FieldRefusal, type FieldRule, toDto } from './fields';
import type { JsonSchema } from './json-schema';

// The shared field rules. Each states its test, its words and its JSON Schema together, so
// that what a route accepts, what it answers and what the API description says cannot drift.

export const text = (min: number, max: number): FieldRule => ({
  test: (v) => typeof v === 'string' && v.length >= min && v.length <= max,
  message: `must be a string of ${min} to ${max} characters`,
  schema: { type: 'string', minLength: min, maxLength: max },
});

/** Text of `min` to `max` characters that a setting keeps in Postgres: NUL and unpaired surrogates are refused (BAD_INPUTS 5, 6). */
export const storedText = (min: number, max: number): FieldRule => ({
  test: (v) => typeof v === 'string' && v.length >= min && v.length <= max && isStorableText(v),
  message: (v) =>
    typeof v === 'string' && v.length >= min && v.length <= max ? UNSTORABLE_TEXT : `must be a string of ${min} to ${max} characters`,
  schema: { type: 'string', minLength: min, maxLength: max },
});

/** Free text (status messages, comments): bounded only by the payload limit. */
export const anyText: FieldRule = { test: (v) => typeof v === 'string', message: 'must be a string', schema: { type: 'string' } };

/** Text Postgres can store as it is (a filter it compares): a repeated query parameter, an array, is refused too. */
export const storableText: FieldRule = {
  test: (v) => typeof v === 'string' && isStorableText(v),
  message: (v) => (typeof v === 'string' ? UNSTORABLE_TEXT : 'must be a string'),
  schema: { type: 'string' },
};

/**
 * A required name, password or token of 1 to `maxLength` characters Postgres can store, with
 * one message for each way it can fail, so that a missing field reads `is required`.
 */
export const requiredText = (maxLength: number): FieldRule => ({
  test: (v) => typeof v === 'string' && v !== '' && v.length <= maxLength && isStorableText(v),
  message: (v) => {
    if (v === undefined || v === '') return 'is required';
    if (typeof v !== 'string') return 'must be a string';
    return v.length > maxLength ? `must be at most ${maxLength} characters` : UNSTORABLE_TEXT;
  },
  schema: { type: 'string', minLength: 1, maxLength },
});

export const stringList = (maxLength: number): FieldRule => ({
  test: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length <= maxLength),
  message: `must be an array of strings of at most ${maxLength} characters`,
  schema: { type: 'array', items: { type: 'string', maxLength } },
});

/** A list of filter texts (a tag may hold a comma, so RPC takes tags as a list). */
export const storableTextList: FieldRule = {
  test: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string' && isStorableText(s)),
  message: (v) => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? UNSTORABLE_TEXT : 'must be an array of strings'),
  schema: { type: 'array', items: { type: 'string' } },
};

export const oneOf = (values: readonly string[]): FieldRule => ({
  test: (v) => typeof v === 'string' && values.includes(v),
  message: `must be one of ${values.join(', ')}`,
  schema: { type: 'string', enum: values },
});

/** Any UUID in RFC 4122 form, the nil and max UUIDs included: ids the server handed out. */
export const uuid: FieldRule = {
  test: (v) => typeof v === 'string' && isUuid(v),
  message: 'must be a UUID',
  schema: { type: 'string', format: 'uuid' },
};

/**
 * Any 8-4-4-4-12 hex string, of any case, version or variant: the ids the server writes into
 * its own stream messages (an OTel trace id written as a UUID is not RFC 4122).
 */
export const uuidShaped: FieldRule = {
  test: (v) => typeof v === 'string' && isUuidShaped(v),
  message: 'must be a UUID',
  schema: { type: 'string', pattern: UUID_SHAPE_PATTERN },
};

/** Tested as text first: validator's isEmail throws on an unpaired surrogate. */
export const email: FieldRule = {
  test: (v) => typeof v === 'string' && isStorableText(v) && isEmail(v),
  message: 'must be an e-mail address',
  schema: { type: 'string', format: 'email' },
};

export const bool: FieldRule = { test: (v) => typeof v === 'boolean', message: 'must be true or false', schema: { type: 'boolean' } };

/** Digits only, no sign, no leading zero: what `Number()` alone would also read from `0x10`, `1e2`, ` 5` or `5.0`. */
const DECIMAL_INTEGER = /^(0|[1-9][0-9]{0,15})$/;

/**
 * An integer from `min` to `max`: a JSON integer, or text of decimal digits only (a query
 * string). The one reader of integer query parameters, so that no other form slips through
 * `Number`'s leniency.
 */
export const decimalInteger = ({ min, max }: { min: number; max: number }): FieldRule => ({
  read: (v) => (typeof v === 'string' && DECIMAL_INTEGER.test(v) ? Number(v) : v),
  test: (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max,
  message: `must be a decimal integer from ${min} to ${max}`,
  schema: { type: 'integer', minimum: min, maximum: max },
});

/** A finite number, or its text (a query string) as `Number` reads it. */
export const numeric: FieldRule = {
  read: (v) => (typeof v === 'string' ? Number(v) : v),
  test: (v) => typeof v === 'number' && Number.isFinite(v),
  message: 'must be a number',
  schema: { type: 'number' },
};

/** A count of things, 1 or more. */
export const positiveInteger: FieldRule = {
  test: (v) => Number.isSafeInteger(v) && (v as number) > 0,
  message: 'must be a positive integer',
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
};

/** A time the server wrote (`toISOString`), read as leniently as `Date.parse` so no stored message is refused. */
export const dateText: FieldRule = {
  test: (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)),
  message: 'must be a date',
  schema: { type: 'string', format: 'date-time' },
};

/** A list of at most `maxItems` values, each passing `item` (a rule without `read` or `nested`). */
export const listOf = (item: FieldRule, maxItems: number): FieldRule => ({
  test: (v, dto) => Array.isArray(v) && v.length <= maxItems && (!item.test || v.every((x) => item.test?.(x, dto))),
  message: `must be an array of at most ${maxItems} items, each of which ${typeof item.message === 'string' ? item.message : 'is valid'}`,
  schema: { type: 'array', maxItems, items: item.schema ?? {} },
});

const UNREADABLE = Symbol('unreadable timestamp');
const TIMESTAMP_SCHEMA = { type: 'string', format: 'date-time', description: TIMESTAMP_RULE } as const;

/** Held as fixed-width UTC ISO, so that versions compare as text; parsed once. */
export const timestamp: FieldRule = {
  test: (v) => typeof v === 'string',
  message: `must be ${TIMESTAMP_RULE}`,
  read: (v) => {
    const ms = parseTimestamp(v);
    return ms === null ? UNREADABLE : toIso(ms);
  },
  schema: TIMESTAMP_SCHEMA,
};

/**
 * Held as epoch milliseconds. Read by the one parser of client timestamps, so a query takes
 * exactly the forms ingestion takes, and Postgres gets a canonical time, never a form it
 * would read differently (a date without a zone is local time there) or refuse.
 */
export const timestampMs: FieldRule = {
  test: (v) => typeof v === 'number',
  message: `must be ${TIMESTAMP_RULE}`,
  read: (v) => parseTimestamp(v) ?? UNREADABLE,
  schema: TIMESTAMP_SCHEMA,
};

export const integer = ({ min, max }: { min: number; max: number }): FieldRule => ({
  test: (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max,
  message: `must be an integer from ${min} to ${max}`,
  schema: { type: 'integer', minimum: min, maximum: max },
});

const { spanTokens, spanCost } = TELEMETRY_RANGES;

/** Token counts of one span. */
export const count: FieldRule = integer(spanTokens);

/** The cost of one span. */
export const amount: FieldRule = {
  test: (v) => typeof v === 'number' && v >= spanCost.min && v <= spanCost.max,
  message: `must be a number from ${spanCost.min} to ${spanCost.max}`,
  schema: { type: 'number', minimum: spanCost.min, maximum: spanCost.max },
};

export const jsonObject: FieldRule = { test: isJsonObject, message: 'must be an object', schema: { type: 'object' } };

export const anyJson: FieldRule = {};

/** What is wrong with a value, or with the part of it at `path` (`[2].role`); null when nothing is. */
export type Problem = string | FieldRefusal | null;

/** A rule whose test and words come from one function, for values whose parts can each be at fault. */
export const ruleOf = (problem: (value: unknown) => Problem, schema: JsonSchema): FieldRule => ({
  test: (value) => problem(value) === null,
  message: (value) => problem(value) ?? 'is invalid',
  schema,
});

export const nested = <T extends object>(cls: DtoClass<T>): FieldRule => ({
  test: (v) => v instanceof cls,
  message: 'must be an object',
  read: (v) => (isJsonObject(v) ? toDto(cls, v) : v),
  nested: cls,
});
