import type { JsonObject, JsonValue } from '../json/types';
import type { UsageDetails } from './usage-details';

/**
 * What one event says about a trace, span or score, in the form every projection applies.
 * Native events and OTLP spans are both turned into these; the projection never sees a
 * wire format. Each field carries the version of the event that set it (CONTRACT merge
 * rule): `${ISO timestamp}|${event id}`, compared as plain text.
 */
export type Version = string;

export const versionOf = (timestampIso: string, eventId: string): Version => `${timestampIso}|${eventId}`;

/** Fields that last-writer-wins per field; absent (never null) when an event does not set them. */
export interface TraceFields {
  name: string;
  /** The timestamp the client gave the trace; the trace's timestamp falls back to its spans. */
  timestamp: string;
  userId: string;
  sessionId: string;
  metadata: JsonObject;
  tags: string[];
  input: JsonValue;
  output: JsonValue;
  release: string;
  version: string;
  environment: string;
}

export interface SpanFields {
  traceId: string;
  parentId: string;
  name: string;
  type: string;
  /** What the span does, in the OTel GenAI operation names (`chat`, `execute_tool`, `invoke_agent`…): beside `type`, never instead of it. */
  operation: string;
  model: string;
  modelParameters: JsonObject;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Token counts by usage type, each token in one type (`usage-details.ts`). */
  usageDetails: UsageDetails;
  cost: number;
  /** Where `cost` comes from: `client`, or `price:<definition id>` when computed from the price table (pricing/price-spans.ts). */
  costSource: string;
  /** A computed cost per usage type, USD; empty for a client's cost. */
  costDetails: Record<string, number>;
  /** Usage types with tokens the price table could not price, sorted; empty when the span's cost is the client's or priced whole (pricing/price-spans.ts). */
  unpricedUsage: string[];
  input: JsonValue;
  output: JsonValue;
  metadata: JsonObject;
  attributes: JsonObject;
  startTime: string;
  endTime: string;
  level: SpanLevel;
  statusMessage: string;
}

/** A span type (CONTRACT "Native batch events"): AGENT, TOOL, LLM, RETRIEVAL, CHAIN, EMBEDDING, EVENT, CUSTOM or any other upper-case word of at most 64 characters. */
export const SPAN_TYPE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * A native span's operation, from its type: the types that name one kind of call map to the
 * OTel GenAI operation name (`chat`, `execute_tool`, `invoke_agent`, `embeddings`) or the
 * name the conventions use for it (`retrieval`, `event`); CHAIN, CUSTOM and other types say
 * nothing about the operation and set none.
 */
const OPERATION_OF_TYPE: Readonly<Record<string, string>> = {
  LLM: 'chat',
  TOOL: 'execute_tool',
  AGENT: 'invoke_agent',
  EMBEDDING: 'embeddings',
  RETRIEVAL: 'retrieval',
  EVENT: 'event',
};

export const operationOfSpanType = (type: string | undefined): string | undefined =>
  type !== undefined && Object.hasOwn(OPERATION_OF_TYPE, type) ? OPERATION_OF_TYPE[type] : undefined;

export const SPAN_LEVELS = ['DEBUG', 'DEFAULT', 'WARNING', 'ERROR'] as const;
export type SpanLevel = (typeof SPAN_LEVELS)[number];

export const SCORE_DATA_TYPES = ['NUMERIC', 'CATEGORICAL', 'BOOLEAN'] as const;
export type ScoreDataType = (typeof SCORE_DATA_TYPES)[number];

export const SCORE_SOURCES = ['API', 'EVAL', 'ANNOTATION'] as const;
export type ScoreSource = (typeof SCORE_SOURCES)[number];

export interface ScoreFields {
  traceId: string;
  spanId: string;
  name: string;
  value: number | string | boolean;
  dataType: ScoreDataType;
  comment: string;
  metadata: JsonObject;
  source: ScoreSource;
  timestamp: string;
  /** Scores given by hand (ANNOTATION): who gave it; never set by an API client. */
  authorUserId: string;
  authorEmail: string;
}

/** Values with the version each one was written at; merged field by field. */
export interface Versioned<F> {
  values: Partial<F>;
  versions: Partial<Record<keyof F & string, Version>>;
}

export interface TraceDelta extends Versioned<TraceFields> {
  projectId: string;
  id: string;
  otelTraceId: string | null;
  externalId: string | null;
  /** receivedAt of the first envelope that mentioned the trace (DESIGN "Rows"). */
  createdAt: string;
  /** Earliest event timestamp that mentioned the trace: the last fallback for its timestamp. */
  firstEventTime: string;
  /** Earliest start of its spans seen so far. */
  minSpanStart: string | null;
  /**
   * UUIDs the trace had before a 32-hex id named the OTel trace (`legacyTraceIds`): a
   * retention tombstone under one of them still keeps the trace deleted.
   */
  legacyIds?: string[];
}

export interface SpanDelta extends Versioned<SpanFields> {
  projectId: string;
  id: string;
  otelSpanId: string | null;
  externalId: string | null;
  createdAt: string;
}

export interface ScoreDelta extends Versioned<ScoreFields> {
  projectId: string;
  id: string;
  externalId: string | null;
  createdAt: string;
}

/** A trace removed for good (retention), with its spans and scores; nothing may bring it back. */
export interface TraceDeletion {
  projectId: string;
  id: string;
  /** receivedAt of the deletion event: the projection's clock. */
  deletedAt: string;
}

/**
 * A dataset run item: which trace (and span) a run produced for a dataset item. Written whole,
 * so the newer link wins as one (`version`), not field by field.
 */
export interface RunItemDelta {
  projectId: string;
  id: string;
  runId: string;
  datasetItemId: string;
  traceId: string;
  spanId: string | null;
  otelTraceId: string | null;
  otelSpanId: string | null;
  createdAt: string;
  version: Version;
}

/** A score given by hand, removed by a person (issue 30); the trace and span say which stats it leaves. */
export interface ScoreDeletion {
  projectId: string;
  id: string;
  traceId: string;
  spanId: string | undefined;
  deletedAt: string;
}

export interface TelemetryFacts {
  traces: TraceDelta[];
  spans: SpanDelta[];
  scores: ScoreDelta[];
  runItems: RunItemDelta[];
  deletions: TraceDeletion[];
  scoreDeletions: ScoreDeletion[];
}

export const emptyFacts = (): TelemetryFacts => ({ traces: [], spans: [], scores: [], runItems: [], deletions: [], scoreDeletions: [] });

/** Every field of `values` stamped with one version: what a single event contributes. */
export function stamped<F>(values: Partial<F>, version: Version): Versioned<F> {
  const present: Partial<F> = {};
  const versions: Partial<Record<keyof F & string, Version>> = {};
  for (const key of Object.keys(values) as (keyof F & string)[]) {
    const value = values[key];
    if (value === undefined || value === null) continue;
    present[key] = value;
    versions[key] = version;
  }
  return { values: present, versions };
}
