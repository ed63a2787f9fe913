import { hash } from 'node:crypto';
import { validate as isUuid } from 'uuid';
import { MAX_NATIVE_ID_LENGTH } from './limits';

/** The fixed namespace of every Spanlog UUIDv5 (CONTRACT "Id mapping"); never change it. */
export const SPANLOG_NAMESPACE = '6f1c2a4e-3b7d-5e80-9a1f-2c4d6e8f0a1b';

const namespaces = new Map<string, Buffer>();
const namespaceBytes = (namespace: string): Buffer => {
  let bytes = namespaces.get(namespace);
  if (bytes === undefined) {
    if (!isUuid(namespace)) throw new TypeError(`not a UUID namespace: ${namespace}`);
    namespaces.set(namespace, (bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex')));
  }
  return bytes;
};

/** Where a name is written after its namespace for hashing: one buffer, reused, for the names that fit. */
const scratch = Buffer.allocUnsafe(16 + 1024);
/** UTF-8 takes at most 3 bytes per UTF-16 unit, so a name this long always fits in `scratch`. */
const SCRATCH_NAME_UNITS = Math.floor((scratch.length - 16) / 3);
/** The variant's hex digit for each value of the hash's two low bits there (RFC 4122: 10xx). */
const VARIANT_DIGITS = '89ab';

/**
 * RFC 4122 UUIDv5: SHA-1 of the namespace's bytes and the name's UTF-8, cut to 128 bits
 * with the version and variant set. The same ids as `uuid`'s v5 at a quarter of the cost, which
 * every span pays: that one converts the name through `encodeURIComponent`, parses the
 * namespace and copies the bytes on every call. Here the name is written into a reused buffer
 * and the digest comes back as hex, the version and variant set in its digits: no buffer per
 * id (issue 25). (It refuses a lone surrogate, which this hashes as U+FFFD; ids are sanitized
 * text before they get here.)
 */
export function uuidV5(name: string, namespace: string): string {
  const ns = namespaceBytes(namespace);
  let data: Buffer;
  if (name.length <= SCRATCH_NAME_UNITS) {
    ns.copy(scratch, 0);
    data = scratch.subarray(0, 16 + scratch.write(name, 16, 'utf8'));
  } else data = Buffer.concat([ns, Buffer.from(name, 'utf8')]);
  // One-shot hashing: a Hash object per id cost more than the hashing itself.
  const hex = hash('sha1', data, 'hex');
  const variant = VARIANT_DIGITS[Number.parseInt(hex[16], 16) & 0x3];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const TRACE_HEX = /^[0-9a-f]{32}$/i;
const SPAN_HEX = /^[0-9a-f]{16}$/i;
const ALL_ZERO = /^0+$/;

export const isOtelTraceId = (value: string): boolean => TRACE_HEX.test(value) && !ALL_ZERO.test(value);
export const isOtelSpanId = (value: string): boolean => SPAN_HEX.test(value) && !ALL_ZERO.test(value);

/** An OTel trace id is already 128 bits: written in UUID form, so it maps back and forth without a table. */
export function otelTraceUuid(traceHex: string): string {
  const h = traceHex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Span ids are only unique within a trace, so the trace takes part in the span's UUID. */
export function otelSpanUuid(traceHex: string, spanHex: string): string {
  return uuidV5(`${traceHex.toLowerCase()}:${spanHex.toLowerCase()}`, SPANLOG_NAMESPACE);
}

export interface MappedId {
  readonly id: string;
  /** The client's own id when it was not a UUID. */
  readonly externalId: string | null;
}

/** Any 8-4-4-4-12 hex string, as a JSON Schema pattern too (which has no flags). */
export const UUID_SHAPE_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID_SHAPE = new RegExp(UUID_SHAPE_PATTERN);

/**
 * Any 8-4-4-4-12 hex string. An OTel trace id written as a UUID (the id the API returns for
 * it) has whatever version and variant nibbles its random bits gave it, so an RFC 4122 check
 * would take about half of them for some other string.
 */
export const isUuidShaped = (value: unknown): value is string => typeof value === 'string' && UUID_SHAPE.test(value);

export const isNativeId = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= MAX_NATIVE_ID_LENGTH;

/** Native ids: a UUID (any 8-4-4-4-12 hex string) is kept, lower-cased; anything else becomes UUIDv5 of itself. */
export function nativeId(value: string): MappedId {
  if (isUuidShaped(value)) return { id: value.toLowerCase(), externalId: null };
  return { id: uuidV5(value, SPANLOG_NAMESPACE), externalId: value };
}

/** A trace as a client names it: its UUID, and the OTel or native id it was named by. */
export interface TraceIdentity extends MappedId {
  /** The 32 hex digits, lower-case, when the client named the trace by its OTel id. */
  readonly otelTraceId: string | null;
}

/** A span as a client names it: its UUID, and the OTel or native id it was named by. */
export interface SpanIdentity extends MappedId {
  /** The 16 hex digits, lower-case, when the client named an OTel span of an OTel trace. */
  readonly otelSpanId: string | null;
}

/**
 * The one rule for a trace id any route or event carries (CONTRACT "Id mapping"): a 32-hex
 * id, in any case, is an OTel trace id and names the OTLP trace; anything else is a native id.
 */
export function traceIdOf(value: string): TraceIdentity {
  if (isOtelTraceId(value)) return { id: otelTraceUuid(value), otelTraceId: value.toLowerCase(), externalId: null };
  return { ...nativeId(value), otelTraceId: null };
}

/**
 * A span id under the trace id it came with: a 16-hex id under a 32-hex trace id is that OTel
 * trace's OTel span, the very span OTLP stored; anything else is a native id. Span ids are
 * only unique within their trace, so an OTel span is only recognised beside its OTel trace id.
 */
export function spanIdOf(traceId: string, spanId: string): SpanIdentity {
  if (isOtelTraceId(traceId) && isOtelSpanId(spanId))
    return { id: otelSpanUuid(traceId, spanId), otelSpanId: spanId.toLowerCase(), externalId: null };
  return { ...nativeId(spanId), otelSpanId: null };
}

/**
 * The UUIDs a 32-hex trace id was given before it named the OTel trace: UUIDv5 of the string
 * as sent, like any native id. The id as sent, in lower case and in upper case; a mixed-case
 * spelling other than the one given cannot be enumerated. None for any other id.
 */
export function legacyTraceIds(value: string): string[] {
  if (!isOtelTraceId(value)) return [];
  return [...new Set([value, value.toLowerCase(), value.toUpperCase()])].map((spelling) => uuidV5(spelling, SPANLOG_NAMESPACE));
}

/**
 * Every UUID a client-supplied trace id may stand for, the trace it names first: the UUID it
 * is, its OTel trace, or its native id; then the ids older rows may still have (until the
 * upgrade's rebuild moved them): a UUID that is no RFC 4122 UUID also stands for UUIDv5 of
 * itself, and a 32-hex id for UUIDv5 of its spellings (`legacyTraceIds`).
 */
export function traceIdCandidates(value: string): string[] {
  const candidates = new Set<string>([traceIdOf(value).id]);
  if (isUuidShaped(value) && !isUuid(value)) candidates.add(uuidV5(value, SPANLOG_NAMESPACE));
  for (const legacy of legacyTraceIds(value)) candidates.add(legacy);
  return [...candidates];
}
