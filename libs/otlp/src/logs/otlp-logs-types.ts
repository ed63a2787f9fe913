/**
 * OTLP/JSON log types with the proto's field names (opentelemetry-proto
 * `collector/logs/v1/logs_service.proto`, `logs/v1/logs.proto`), as the OTLP/HTTP JSON
 * encoding writes them. Every field is optional on the wire and `null` means absent.
 */
import type { AnyValue, InstrumentationScope, KeyValue, Resource } from '../otlp-types';

/** `opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest`: the body of POST /v1/logs. */
export interface ExportLogsServiceRequest {
  /** Log records grouped by the resource that produced them. */
  resourceLogs?: ResourceLogs[];
}

/** `opentelemetry.proto.logs.v1.ResourceLogs`: log records of one resource. */
export interface ResourceLogs {
  /** The entity that produced the records; absent means unknown. */
  resource?: Resource;
  /** Records grouped by the instrumentation scope that produced them. */
  scopeLogs?: ScopeLogs[];
  /** Semantic-convention schema of the resource attributes. */
  schemaUrl?: string;
}

/** `opentelemetry.proto.logs.v1.ScopeLogs`: log records of one instrumentation scope. */
export interface ScopeLogs {
  /** The instrumentation library; absent means unknown. */
  scope?: InstrumentationScope;
  /** The records, in the order the exporter sent them. */
  logRecords?: LogRecord[];
  /** Semantic-convention schema of the record attributes. */
  schemaUrl?: string;
}

/** `opentelemetry.proto.logs.v1.LogRecord`: one record, an event when it has an event name. */
export interface LogRecord {
  /** When the event happened, nanoseconds since the Unix epoch; 0 or absent means unknown. */
  timeUnixNano?: string | number;
  /** When the SDK observed it. */
  observedTimeUnixNano?: string | number;
  /** `SeverityNumber` as its integer. */
  severityNumber?: number;
  /** Severity as the source wrote it. */
  severityText?: string;
  /** The record's content, e.g. a GenAI message as a kvlist. */
  body?: AnyValue;
  /** Record attributes; older SDKs carry the event name as `event.name` here. */
  attributes?: KeyValue[];
  /** Attributes the SDK dropped over its limits. */
  droppedAttributesCount?: number;
  /** W3C trace flags. */
  flags?: number;
  /** The trace the record belongs to, 32 hex characters; empty when none. */
  traceId?: string;
  /** The span the record belongs to, 16 hex characters; empty when none. */
  spanId?: string;
  /** The event's name (proto 1.5+), e.g. `gen_ai.choice`. */
  eventName?: string;
}
