import { v5 as uuidv5, validate as isUuid } from 'uuid';
import { MAX_NATIVE_ID_LENGTH } from './limits';

/** The fixed namespace of every Spanlog UUIDv5 (CONTRACT "Id mapping"); never change it. */
export const SPANLOG_NAMESPACE = '6f1c2a4e-3b7d-5e80-9a1f-2c4d6e8f0a1b';

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
  return uuidv5(`${traceHex.toLowerCase()}:${spanHex.toLowerCase()}`, SPANLOG_NAMESPACE);
}

export interface MappedId {
  readonly id: string;
  /** The client's own id when it was not a UUID. */
  readonly externalId: string | null;
}

export const isNativeId = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= MAX_NATIVE_ID_LENGTH;

/** Native ids: a UUID is kept (lower-cased), anything else becomes UUIDv5 of itself. */
export function nativeId(value: string): MappedId {
  if (isUuid(value)) return { id: value.toLowerCase(), externalId: null };
  return { id: uuidv5(value, SPANLOG_NAMESPACE), externalId: value };
}

/** Every UUID a client-supplied trace id may stand for: as a UUID, an OTel hex id or a native id. */
export function traceIdCandidates(value: string): string[] {
  const candidates = new Set<string>([nativeId(value).id]);
  if (isOtelTraceId(value)) candidates.add(otelTraceUuid(value));
  return [...candidates];
}
