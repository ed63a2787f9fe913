/**
 * Every OTLP/JSON wire detail in one place: hex ids, nanosecond timestamps, 64-bit integers,
 * doubles and bytes as proto3 JSON writes them. Each reader is total: it answers null for
 * anything it cannot read, and never throws.
 */
// From their modules, not the barrel: a barrel import is read through a getter on every call (issue 25).
import { TELEMETRY_RANGES } from '@app/domain/limits';
import { isOtelSpanId, isOtelTraceId } from '@app/domain/ids';

const HEX_16 = /^[0-9a-f]{16}$/i;
const HEX_32 = /^[0-9a-f]{32}$/i;
const ZEROS = /^0+$/;

/** The trace id in lower case (Spanlog stores hex lower-case), or null if it is not 32 hex digits, not all zero. */
export function traceHexOf(value: unknown): string | null {
  return typeof value === 'string' && isOtelTraceId(value) ? value.toLowerCase() : null;
}

/** The span id in lower case, or null if it is not 16 hex digits, not all zero. */
export function spanHexOf(value: unknown): string | null {
  return typeof value === 'string' && isOtelSpanId(value) ? value.toLowerCase() : null;
}

/** A `parentSpanId` as sent: absent, `""` and all zeros all mean "root" (SDKs differ), anything else must be 16 hex. */
export type ParentRef = { kind: 'root' } | { kind: 'parent'; hex: string } | { kind: 'invalid' };

export function parentRefOf(value: unknown): ParentRef {
  if (value === undefined || value === null || value === '') return { kind: 'root' };
  if (typeof value !== 'string' || !HEX_16.test(value)) return { kind: 'invalid' };
  return ZEROS.test(value) ? { kind: 'root' } : { kind: 'parent', hex: value.toLowerCase() };
}

/** Hex ids of a link, which proto3 lets be empty; zeros are kept as sent. */
export const isLinkTraceHex = (value: unknown): value is string => typeof value === 'string' && HEX_32.test(value);
export const isLinkSpanHex = (value: unknown): value is string => typeof value === 'string' && HEX_16.test(value);

/** The last nanosecond of the last millisecond TELEMETRY_RANGES allows, as canonical decimal text. */
export const MAX_UNIX_NANO = String(BigInt(TELEMETRY_RANGES.timestampMs.max) * 1_000_000n + 999_999n);
const DIGITS = /^\d+$/;
const LEADING_ZEROS = /^0+(?=\d)/;

/**
 * Nanoseconds since the epoch as canonical decimal text (no leading zeros), from a decimal
 * string (exact) or a JSON number (already rounded by `JSON.parse` above 2^53, BAD_INPUTS 1);
 * null unless a non-negative integer ≤ MAX_UNIX_NANO. Text, not BigInt: the hot path only
 * slices it.
 */
export function unixNanoTextOf(value: unknown): string | null {
  let digits: string;
  if (typeof value === 'string') {
    if (!DIGITS.test(value)) return null;
    digits = value.replace(LEADING_ZEROS, '');
  } else if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
    digits = Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
  } else {
    return null;
  }
  const fits = digits.length < MAX_UNIX_NANO.length || (digits.length === MAX_UNIX_NANO.length && digits <= MAX_UNIX_NANO);
  return fits ? digits : null;
}

/**
 * Fixed-width ISO 8601 with microseconds, `2025-01-01T00:00:00.123456Z`, from canonical
 * nanosecond text: what Postgres `timestamptz` keeps. The nanoseconds below are truncated,
 * not rounded, so a time never moves into the next microsecond; fixed width keeps OTLP
 * times comparable as text.
 */
export function unixNanoTextToIso(digits: string): string {
  const padded = digits.padStart(10, '0');
  const seconds = padded.slice(0, -9);
  // Spans of one export mostly share their seconds; formatting a Date is the costly part.
  if (seconds !== lastSeconds.text) lastSeconds = { text: seconds, iso: new Date(Number(seconds) * 1000).toISOString().slice(0, 19) };
  return `${lastSeconds.iso}.${padded.slice(-9, -3)}Z`;
}

/** A one-entry cache of `unixNanoTextToIso`'s date part (`YYYY-MM-DDTHH:mm:ss`). */
let lastSeconds = { text: '0', iso: '1970-01-01T00:00:00' };

/** A non-zero timestamp as microsecond ISO; 0 is proto3's "not set", so it yields null. */
export function isoOfUnixNano(value: unknown): string | null {
  const digits = unixNanoText(value);
  return digits === null ? null : unixNanoTextToIso(digits);
}

/** The exact decimal text of a non-zero timestamp, kept beside the ISO time, which stops at microseconds. */
export function unixNanoText(value: unknown): string | null {
  const digits = unixNanoTextOf(value);
  return digits === null || digits === '0' ? null : digits;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT_TEXT = /^-?\d{1,20}$/;

/** Whether a value is an `int64` in proto3 JSON: a decimal string in range, or an integral JSON number. */
export function isInt64(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value);
  if (typeof value !== 'string' || !INT_TEXT.test(value)) return false;
  const n = BigInt(value);
  return n >= INT64_MIN && n <= INT64_MAX;
}

/**
 * An `intValue` decoded: a number while exact (|n| ≤ 2^53 − 1), else the canonical decimal
 * string, so that no digit is lost (CONTRACT "OTLP"). Null if it is not an int64.
 */
export function int64Of(value: unknown): number | string | null {
  if (!isInt64(value)) return null;
  if (typeof value === 'number') return value;
  const n = BigInt(value as string);
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

const NON_FINITE = new Set(['NaN', 'Infinity', '-Infinity']);
const FLOAT_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Whether a value is a `double` in proto3 JSON: a number, a numeric string, or NaN/±Infinity as text. */
export const isDouble = (value: unknown): boolean =>
  typeof value === 'number' || (typeof value === 'string' && (NON_FINITE.has(value) || FLOAT_TEXT.test(value)));

/** A `doubleValue` decoded: a finite number, or `"NaN"`/`"Infinity"`/`"-Infinity"` as text, which JSON cannot hold as numbers. */
export function doubleOf(value: unknown): number | string | null {
  // -0 becomes 0: JSON (and so the stored row) cannot tell them apart, and a replay must give the same facts.
  if (typeof value === 'number') return value === 0 ? 0 : value;
  if (typeof value !== 'string') return null;
  if (NON_FINITE.has(value)) return value;
  if (!FLOAT_TEXT.test(value)) return null;
  const n = Number(value);
  if (n === 0) return 0;
  // "1e999" parses to Infinity: keep the name JSON can hold.
  return Number.isFinite(n) ? n : n > 0 ? 'Infinity' : '-Infinity';
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** proto3 JSON bytes: standard or URL-safe base64, padding optional. */
export const isBase64 = (value: unknown): value is string => typeof value === 'string' && BASE64.test(value);

/** `SpanKind` integers by their proto names without the `SPAN_KIND_` prefix; other integers as decimal text. */
const KIND_NAMES = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;

export function spanKindName(kind: unknown): string {
  if (kind === undefined || kind === null) return KIND_NAMES[0];
  return typeof kind === 'number' && Number.isInteger(kind) ? (KIND_NAMES[kind] ?? String(kind)) : KIND_NAMES[0];
}

/** `StatusCode` integers by their proto names without the `STATUS_CODE_` prefix; other integers as decimal text. */
const STATUS_NAMES = ['UNSET', 'OK', 'ERROR'] as const;

export function statusCodeName(code: unknown): string {
  if (code === undefined || code === null) return STATUS_NAMES[0];
  return typeof code === 'number' && Number.isInteger(code) ? (STATUS_NAMES[code] ?? String(code)) : STATUS_NAMES[0];
}
