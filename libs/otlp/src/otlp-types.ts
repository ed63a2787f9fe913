/**
 * OTLP/JSON trace types with the proto's field names (opentelemetry-proto
 * `collector/trace/v1/trace_service.proto`, `trace/v1/trace.proto`, `common/v1/common.proto`,
 * `resource/v1/resource.proto`), as the OTLP/HTTP JSON encoding writes them: lowerCamelCase
 * keys, hex trace and span ids, 64-bit integers as a decimal string or a JSON number.
 * Every field is optional on the wire (proto3 omits defaults) and `null` means absent.
 */

/** `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`: the body of POST /v1/traces. */
export interface ExportTraceServiceRequest {
  /** Spans grouped by the resource (service, host, process) that produced them. */
  resourceSpans?: ResourceSpans[];
}

/** `opentelemetry.proto.trace.v1.ResourceSpans`: spans of one resource. */
export interface ResourceSpans {
  /** The entity that produced the spans; absent means unknown. */
  resource?: Resource;
  /** Spans grouped by the instrumentation scope (library) that produced them. */
  scopeSpans?: ScopeSpans[];
  /** Semantic-convention schema of the resource attributes. */
  schemaUrl?: string;
}

/** `opentelemetry.proto.resource.v1.Resource`: what produced the telemetry. */
export interface Resource {
  /** Resource attributes, e.g. `service.name`. */
  attributes?: KeyValue[];
  /** Attributes the SDK dropped over its limits. */
  droppedAttributesCount?: number;
}

/** `opentelemetry.proto.trace.v1.ScopeSpans`: spans of one instrumentation scope. */
export interface ScopeSpans {
  /** The instrumentation library; absent means unknown. */
  scope?: InstrumentationScope;
  /** The spans, in the order the exporter sent them. */
  spans?: Span[];
  /** Semantic-convention schema of the span attributes. */
  schemaUrl?: string;
}

/** `opentelemetry.proto.common.v1.InstrumentationScope`: the library that made the spans. */
export interface InstrumentationScope {
  /** Library name, e.g. `ai` or `openinference.instrumentation.openai_agents`. */
  name?: string;
  /** Library version. */
  version?: string;
  /** Scope attributes. */
  attributes?: KeyValue[];
  /** Attributes the SDK dropped over its limits. */
  droppedAttributesCount?: number;
}

/** `opentelemetry.proto.trace.v1.Span`: one operation. */
export interface Span {
  /** 32 hex characters (16 bytes), not all zeros; any case on the wire. */
  traceId: string;
  /** 16 hex characters (8 bytes), not all zeros; any case on the wire. */
  spanId: string;
  /** W3C trace-context `tracestate`. */
  traceState?: string;
  /** The parent's span id; absent, empty or all zeros for a root span. */
  parentSpanId?: string;
  /** W3C trace flags and the remote-parent bits. */
  flags?: number;
  /** Operation name. */
  name?: string;
  /** `SpanKind` as its integer (enum names are refused). */
  kind?: SpanKind | number;
  /** Start, nanoseconds since the Unix epoch. */
  startTimeUnixNano?: string | number;
  /** End, nanoseconds since the Unix epoch. */
  endTimeUnixNano?: string | number;
  /** Span attributes, e.g. `gen_ai.request.model`. */
  attributes?: KeyValue[];
  /** Attributes the SDK dropped over its limits. */
  droppedAttributesCount?: number;
  /** Timed annotations, e.g. an `exception`. */
  events?: SpanEvent[];
  /** Events the SDK dropped over its limits. */
  droppedEventsCount?: number;
  /** Causal references to spans of this or other traces. */
  links?: SpanLink[];
  /** Links the SDK dropped over its limits. */
  droppedLinksCount?: number;
  /** Outcome; absent means UNSET. */
  status?: Status;
}

/** `opentelemetry.proto.trace.v1.Span.Event`: a point in time inside a span. */
export interface SpanEvent {
  /** When it happened, nanoseconds since the Unix epoch. */
  timeUnixNano?: string | number;
  /** Event name, e.g. `exception`. */
  name?: string;
  /** Event attributes. */
  attributes?: KeyValue[];
  /** Attributes the SDK dropped over its limits. */
  droppedAttributesCount?: number;
}

/** `opentelemetry.proto.trace.v1.Span.Link`: a reference to another span. */
export interface SpanLink {
  /** The linked span's trace id, 32 hex characters. */
  traceId: string;
  /** The linked span's id, 16 hex characters. */
  spanId: string;
  /** W3C `tracestate` of the linked span. */
  traceState?: string;
  /** Link attributes. */
  attributes?: KeyValue[];
  /** Attributes the SDK dropped over its limits. */
  droppedAttributesCount?: number;
  /** W3C trace flags of the linked span. */
  flags?: number;
}

/** `opentelemetry.proto.trace.v1.Status`: the span's outcome. */
export interface Status {
  /** Developer-facing message; meaningful with code ERROR. */
  message?: string;
  /** `StatusCode` as its integer (enum names are refused). */
  code?: StatusCode | number;
}

/** `opentelemetry.proto.trace.v1.Span.SpanKind`. */
export const SpanKind = {
  UNSPECIFIED: 0,
  INTERNAL: 1,
  SERVER: 2,
  CLIENT: 3,
  PRODUCER: 4,
  CONSUMER: 5,
} as const;
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind];

/** `opentelemetry.proto.trace.v1.Status.StatusCode`. */
export const StatusCode = {
  UNSET: 0,
  OK: 1,
  ERROR: 2,
} as const;
export type StatusCode = (typeof StatusCode)[keyof typeof StatusCode];

/** `opentelemetry.proto.common.v1.KeyValue`: one attribute. */
export interface KeyValue {
  /** Attribute name, e.g. `service.name`. */
  key: string;
  /** Attribute value; absent means an empty value. */
  value?: AnyValue;
}

/** `opentelemetry.proto.common.v1.AnyValue`: a oneof, so one member is set (none: empty value). */
export interface AnyValue {
  /** UTF-8 text. */
  stringValue?: string;
  /** A boolean. */
  boolValue?: boolean;
  /** A signed 64-bit integer: a decimal string (proto3 JSON) or a JSON number (OTel JS). */
  intValue?: string | number;
  /** A double; proto3 JSON may also write `"NaN"`, `"Infinity"`, `"-Infinity"` or a numeric string. */
  doubleValue?: number | string;
  /** A list of values. */
  arrayValue?: ArrayValue;
  /** A list of key-value pairs (a map). */
  kvlistValue?: KeyValueList;
  /** Bytes, base64-encoded. */
  bytesValue?: string;
}

/** `opentelemetry.proto.common.v1.ArrayValue`. */
export interface ArrayValue {
  /** The elements. */
  values?: AnyValue[];
}

/** `opentelemetry.proto.common.v1.KeyValueList`. */
export interface KeyValueList {
  /** The entries; a key repeated is the last one's value. */
  values?: KeyValue[];
}
