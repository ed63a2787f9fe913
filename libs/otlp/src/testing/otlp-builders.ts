/** Builders of OTLP/JSON test data: a valid span or export, changed only where a test says. */
import { INGEST_SCHEMAS, type IngestEnvelope } from '@app/domain';
import type { AnyValue, ExportTraceServiceRequest, InstrumentationScope, KeyValue, Span } from '../otlp-types';
import type { OtlpEnvelope } from '../otlp-to-facts';

export const TRACE_HEX = '5b8efff798038103d269b633813fc60c';
export const SPAN_HEX = 'eee19b7ec3c1b174';
export const PARENT_HEX = 'eee19b7ec3c1b173';

export const ENVELOPE: OtlpEnvelope = { projectId: '00000000-0000-4000-8000-000000000001', receivedAt: '2025-01-15T10:05:00.000Z' };
/** The whole envelope of an INGEST message holding an OTLP export, as the processor reads it: `ENVELOPE`'s project and time. */
export const OTLP_MESSAGE_ENVELOPE: IngestEnvelope = {
  ...ENVELOPE,
  schema: INGEST_SCHEMAS.otlp,
  orgId: '00000000-0000-4000-8000-000000000002',
  apiKeyId: '00000000-0000-4000-8000-000000000003',
  requestId: 'otlp-builders',
  chunkIndex: 0,
  chunkCount: 1,
};

export const str = (stringValue: string): AnyValue => ({ stringValue });
export const int = (intValue: number | string): AnyValue => ({ intValue });
export const dbl = (doubleValue: number | string): AnyValue => ({ doubleValue });
export const bool = (boolValue: boolean): AnyValue => ({ boolValue });
export const bytes = (bytesValue: string): AnyValue => ({ bytesValue });
export const arr = (...values: AnyValue[]): AnyValue => ({ arrayValue: { values } });
export const kvlist = (...values: KeyValue[]): AnyValue => ({ kvlistValue: { values } });
export const kv = (key: string, value: AnyValue): KeyValue => ({ key, value });

/** `{key: value}` shorthand for string attributes, the common case in tests. */
export const attrs = (entries: Record<string, string | number | boolean | AnyValue>): KeyValue[] =>
  Object.entries(entries).map(([key, v]) =>
    kv(
      key,
      typeof v === 'string'
        ? str(v)
        : typeof v === 'number'
          ? Number.isInteger(v)
            ? int(v)
            : dbl(v)
          : typeof v === 'boolean'
            ? bool(v)
            : v,
    ),
  );

export function span(overrides: Partial<Span> = {}): Span {
  return {
    traceId: TRACE_HEX,
    spanId: SPAN_HEX,
    parentSpanId: PARENT_HEX,
    name: 'span',
    kind: 1,
    startTimeUnixNano: '1736935200000000000',
    endTimeUnixNano: '1736935201000000000',
    attributes: [],
    ...overrides,
  };
}

export interface ExportOptions {
  resource?: KeyValue[];
  scope?: InstrumentationScope;
}

export function exportOf(
  spans: Span[],
  { resource = attrs({ 'service.name': 'svc' }), scope = { name: 'lib', version: '1.0.0' } }: ExportOptions = {},
): ExportTraceServiceRequest {
  return { resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope, spans }] }] };
}
