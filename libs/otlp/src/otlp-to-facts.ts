/**
 * OTLP spans to the facts every projection applies (SPEC §2, CONTRACT "OTLP"): one
 * SpanDelta per span and one TraceDelta per span's trace, so OTLP and native traces go
 * through the same merge.
 */
// From their modules, not the barrel: a barrel import is read through a getter on every call (issue 25).
import { type JsonObject, type JsonValue, isJsonObject } from '@app/domain/json/types';
import { sanitizeText } from '@app/domain/json/sanitize';
import { otelSpanUuid, otelTraceUuid } from '@app/domain/ids';
import {
  type SpanDelta,
  type SpanFields,
  type SpanLevel,
  type TelemetryFacts,
  type TraceDelta,
  type TraceFields,
  type Versioned,
  emptyFacts,
  stamped,
  versionOf,
} from '@app/domain/telemetry/records';
import { decodeAttributes } from './attributes';
import type { ExportTraceServiceRequest } from './otlp-types';
import { StatusCode } from './otlp-types';
import {
  isLinkSpanHex,
  isLinkTraceHex,
  isoOfUnixNano,
  parentRefOf,
  spanHexOf,
  spanKindName,
  statusCodeName,
  traceHexOf,
  unixNanoText,
} from './otlp-wire';
import { type SpanMapping, mapSpan } from './conventions/map-span';
import { type EventView, type SpanView, labelOf } from './conventions/readers';

/** Where the export was accepted: the projection's project and its only clock. */
export interface OtlpEnvelope {
  projectId: string;
  receivedAt: string;
}

type Obj = Record<string, unknown>;

const objectOr = (value: unknown): Obj => (isJsonObject(value) ? value : {});
const listOr = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
/** proto3 writes no empty string, so `""` and absent are the same: neither sets a field. */
const textOr = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? sanitizeText(value) : undefined);

/** What a resource contributes to each of its spans' traces, decoded once per resource. */
export interface ResourceContext {
  attributes: JsonObject;
  /** SPEC 2.1: the `service:<service.name>` tag, when the resource names its service. */
  serviceTag: string | undefined;
  /**
   * The trace fields of a span no convention adds metadata or tags to: shared by the resource's
   * spans, which change no value they are given (the merge replaces a value whole).
   */
  traceDefaults: { metadata: JsonObject | undefined; tags: string[] | undefined };
}

export function resourceContextOf(resourceSpans: Obj): ResourceContext {
  const attributes = decodeAttributes(objectOr(resourceSpans.resource).attributes);
  const service = labelOf(Object.hasOwn(attributes, 'service.name') ? attributes['service.name'] : undefined);
  const serviceTag = service === undefined ? undefined : `service:${service}`;
  return {
    attributes,
    serviceTag,
    traceDefaults: {
      metadata: Object.keys(attributes).length > 0 ? attributes : undefined,
      tags: serviceTag === undefined ? undefined : [serviceTag],
    },
  };
}

/** What the convention tables read of a span: its attributes, its events and its resource's attributes. */
export function spanViewOf(span: Obj, resource: ResourceContext): SpanView {
  const events: EventView[] = listOr(span.events)
    .filter(isJsonObject)
    .map((event) => ({
      name: typeof event.name === 'string' ? sanitizeText(event.name) : '',
      attributes: decodeAttributes(event.attributes),
    }));
  return { attributes: decodeAttributes(span.attributes), events, resource: resource.attributes };
}

/**
 * The trace fields a span states. SPEC 2.1: resource attributes are the trace's metadata and
 * give its `service:` tag; a convention's metadata and tags are added to them. The root span's
 * name is the trace's name (SPEC 2.1), whatever name a convention's attribute gives the trace
 * (`langfuse.trace.name` stays in the span's attributes).
 */
export function traceValuesOf(mapping: SpanMapping, resource: ResourceContext, rootName: string | undefined): Partial<TraceFields> {
  const { trace } = mapping;
  return {
    metadata: trace.metadata?.value === undefined ? resource.traceDefaults.metadata : metadataOf(resource, trace.metadata.value),
    tags: trace.tags?.value === undefined ? resource.traceDefaults.tags : tagsOf(resource, trace.tags.value),
    userId: trace.userId?.value,
    sessionId: trace.sessionId?.value,
    environment: trace.environment?.value,
    name: rootName,
  };
}

function metadataOf(resource: ResourceContext, added: JsonObject): JsonObject | undefined {
  const metadata = { ...resource.attributes, ...added };
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

function tagsOf(resource: ResourceContext, added: string[]): string[] | undefined {
  const tags = [...new Set([...(resource.serviceTag === undefined ? [] : [resource.serviceTag]), ...added])];
  return tags.length > 0 ? tags : undefined;
}

/** A span's total tokens: the sum when both counts are known. */
export function totalTokensOf({ span }: SpanMapping): number | undefined {
  const prompt = span.promptTokens?.value;
  const completion = span.completionTokens?.value;
  return prompt !== undefined && completion !== undefined ? prompt + completion : undefined;
}

/** The instrumentation scope as span metadata: `{name, version, attributes}`, present members only. */
function scopeOf(scopeSpans: Obj): JsonObject | undefined {
  const scope = objectOr(scopeSpans.scope);
  const out: JsonObject = {};
  const name = textOr(scope.name);
  const version = textOr(scope.version);
  const attributes = decodeAttributes(scope.attributes);
  if (name !== undefined) out.name = name;
  if (version !== undefined) out.version = version;
  if (Object.keys(attributes).length > 0) out.attributes = attributes;
  return Object.keys(out).length > 0 ? out : undefined;
}

function eventsOf(span: Obj): JsonValue[] {
  return listOr(span.events)
    .filter(isJsonObject)
    .map((event) => {
      const out: JsonObject = {};
      const name = textOr(event.name);
      const time = isoOfUnixNano(event.timeUnixNano);
      const attributes = decodeAttributes(event.attributes);
      if (name !== undefined) out.name = name;
      if (time !== null) out.time = time;
      if (Object.keys(attributes).length > 0) out.attributes = attributes;
      return out;
    });
}

function linksOf(span: Obj): JsonValue[] {
  return listOr(span.links)
    .filter(isJsonObject)
    .filter((link) => isLinkTraceHex(link.traceId) && isLinkSpanHex(link.spanId))
    .map((link) => {
      const out: JsonObject = { traceId: (link.traceId as string).toLowerCase(), spanId: (link.spanId as string).toLowerCase() };
      const traceState = textOr(link.traceState);
      const attributes = decodeAttributes(link.attributes);
      if (traceState !== undefined) out.traceState = traceState;
      if (Object.keys(attributes).length > 0) out.attributes = attributes;
      return out;
    });
}

/**
 * What OTLP says about a span beyond SPEC's fields, kept in the span's `metadata`:
 * - `scope`: `{name, version, attributes}` of the instrumentation scope, when it has any;
 * - `kind`: the SpanKind name without prefix (`INTERNAL`, `SERVER`…; `UNSPECIFIED` when
 *   absent, decimal text for an integer the proto does not name);
 * - `startTimeUnixNano` / `endTimeUnixNano`: the exact decimal nanoseconds, because
 *   `startTime`/`endTime` stop at microseconds (what Postgres keeps);
 * - `status`: `{code, message}` with the StatusCode name, unless UNSET without a message;
 * - `traceState`, `events` (`{name, time, attributes}`), `links` (`{traceId, spanId,
 *   traceState, attributes}`, hex lower-case): only when present.
 */
function spanMetadataOf(span: Obj, scope: JsonObject | undefined): JsonObject {
  const metadata: JsonObject = {};
  if (scope) metadata.scope = scope;
  metadata.kind = spanKindName(span.kind);
  const start = unixNanoText(span.startTimeUnixNano);
  const end = unixNanoText(span.endTimeUnixNano);
  if (start !== null) metadata.startTimeUnixNano = start;
  if (end !== null) metadata.endTimeUnixNano = end;
  const status = objectOr(span.status);
  const statusMessage = textOr(status.message);
  const code = statusCodeName(status.code);
  if (code !== 'UNSET' || statusMessage !== undefined)
    metadata.status = statusMessage === undefined ? { code } : { code, message: statusMessage };
  const traceState = textOr(span.traceState);
  if (traceState !== undefined) metadata.traceState = traceState;
  const events = eventsOf(span);
  if (events.length > 0) metadata.events = events;
  const links = linksOf(span);
  if (links.length > 0) metadata.links = links;
  return metadata;
}

/** CONTRACT "OTLP": status ERROR is level ERROR with its message; anything else is DEFAULT. */
function levelOf(span: Obj): Pick<SpanFields, 'level'> & Partial<Pick<SpanFields, 'statusMessage'>> {
  const status = objectOr(span.status);
  if (status.code !== StatusCode.ERROR) return { level: 'DEFAULT' satisfies SpanLevel };
  return { level: 'ERROR', statusMessage: textOr(status.message) };
}

/**
 * The time part of the version of a trace's input and output taken from its root span: before
 * any time a client may send or the server stamps (as log-derived content,
 * LOG_CONTENT_VERSION_TIME), so a value the trace states itself (native `trace-create`, a
 * Langfuse trace body) wins in any order of arrival, and the root only fills what it leaves empty.
 */
export const ROOT_CONTENT_VERSION_TIME = '0000-01-01T00:00:00.000Z';

/**
 * The root span's input and output as its trace's (what Langfuse shows), stamped below every
 * explicit trace value. Among root exports the latest still wins: the arrival time leads the
 * version's id part.
 */
function rootContentOf(values: Partial<SpanFields>, receivedAt: string, spanHex: string): Versioned<TraceFields> {
  return stamped<TraceFields>(
    { input: values.input, output: values.output },
    versionOf(ROOT_CONTENT_VERSION_TIME, `root:${receivedAt}:${spanHex}`),
  );
}

/** Decoded once per scope, shared by its spans. */
interface ScopeContext {
  resource: ResourceContext;
  scope: JsonObject | undefined;
}

/** The ids of one export's spans and traces, each worked out once per call. */
interface ExportIds {
  /** Span UUIDs are UUIDv5 (SHA-1, ~15 µs each): a parent is usually a span of the same export. */
  spanUuidOf(traceHex: string, spanHex: string): string;
  /** A trace's spans share one string, which the fold then hashes once. */
  traceUuidOf(traceHex: string): string;
}

function exportIds(): ExportIds {
  const spans = new Map<string, string>();
  const traces = new Map<string, string>();
  return {
    spanUuidOf: (traceHex, spanHex) => {
      const key = `${traceHex}:${spanHex}`;
      let id = spans.get(key);
      if (id === undefined) spans.set(key, (id = otelSpanUuid(traceHex, spanHex)));
      return id;
    },
    traceUuidOf: (traceHex) => {
      let id = traces.get(traceHex);
      if (id === undefined) traces.set(traceHex, (id = otelTraceUuid(traceHex)));
      return id;
    },
  };
}

function spanFacts(span: Obj, context: ScopeContext, envelope: OtlpEnvelope, ids: ExportIds, facts: TelemetryFacts): void {
  const traceHex = traceHexOf(span.traceId);
  const spanHex = spanHexOf(span.spanId);
  const parent = parentRefOf(span.parentSpanId);
  // Unvalidated input is skipped rather than thrown on: validateOtlpRequest refuses it upstream.
  if (traceHex === null || spanHex === null || parent.kind === 'invalid') return;

  const traceId = ids.traceUuidOf(traceHex);
  // OTLP carries no event time: the export's arrival orders versions, the span id breaks ties.
  const version = versionOf(envelope.receivedAt, spanHex);
  const view = spanViewOf(span, context.resource);
  // The stored values only: `explain` asks for the rest.
  const mapping = mapSpan(view, 'winners');
  const name = textOr(span.name);
  const startTime = isoOfUnixNano(span.startTimeUnixNano) ?? undefined;

  const { span: mapped } = mapping;
  const { level, statusMessage } = levelOf(span);
  // Member by member, no spread: copying objects of many shapes into a new one takes V8's slow
  // path, which was a fifth of the conversion (issue 25). In the order the facts have always had.
  const spanValues: Partial<SpanFields> = {
    traceId,
    parentId: parent.kind === 'parent' ? ids.spanUuidOf(traceHex, parent.hex) : undefined,
    name,
    type: mapping.type.value,
    operation: mapped.operation?.value,
    model: mapped.model?.value,
    modelParameters: mapped.modelParameters?.value,
    promptTokens: mapped.promptTokens?.value,
    completionTokens: mapped.completionTokens?.value,
    totalTokens: totalTokensOf(mapping),
    usageDetails: mapped.usageDetails?.value,
    cost: mapped.cost?.value,
    input: mapped.input?.value,
    output: mapped.output?.value,
    metadata: spanMetadataOf(span, context.scope),
    attributes: view.attributes,
    startTime,
    endTime: isoOfUnixNano(span.endTimeUnixNano) ?? undefined,
    level,
    statusMessage,
  };
  const stampedSpan = stamped(spanValues, version);
  facts.spans.push({
    projectId: envelope.projectId,
    id: ids.spanUuidOf(traceHex, spanHex),
    otelSpanId: spanHex,
    externalId: null,
    createdAt: envelope.receivedAt,
    values: stampedSpan.values,
    versions: stampedSpan.versions,
  } satisfies SpanDelta);

  // SPEC 2.1: the root span names the trace; a trace seen only through children keeps name null.
  const traceValues = stamped(traceValuesOf(mapping, context.resource, parent.kind === 'root' ? name : undefined), version);
  const rootContent = parent.kind === 'root' ? rootContentOf(spanValues, envelope.receivedAt, spanHex) : undefined;
  facts.traces.push({
    projectId: envelope.projectId,
    id: traceId,
    otelTraceId: traceHex,
    externalId: null,
    createdAt: envelope.receivedAt,
    // The span's start is the client's own time for the trace, as an event timestamp is for native events.
    firstEventTime: startTime ?? envelope.receivedAt,
    minSpanStart: startTime ?? null,
    // `stamped` made both objects for this delta alone: the root's content goes into them.
    values: rootContent ? Object.assign(traceValues.values, rootContent.values) : traceValues.values,
    versions: rootContent ? Object.assign(traceValues.versions, rootContent.versions) : traceValues.versions,
  } satisfies TraceDelta);
}

/**
 * The facts a validated OTLP export states: one SpanDelta per span and one TraceDelta per
 * span (for its trace), in body order; `foldFacts` merges them per row. Ids follow CONTRACT
 * "Id mapping" (trace: the hex as a UUID; span: UUIDv5 of `<traceHex>:<spanHex>`), hex ids
 * are kept lower-case. Total: anything `validateOtlpRequest` would refuse is skipped, never
 * thrown on. All text is made safe for Postgres.
 */
export function otlpToFacts(body: ExportTraceServiceRequest, envelope: OtlpEnvelope): TelemetryFacts {
  const facts = emptyFacts();
  const ids = exportIds();
  for (const resourceSpans of listOr(objectOr(body).resourceSpans)) {
    if (!isJsonObject(resourceSpans)) continue;
    const resource = resourceContextOf(resourceSpans);
    for (const scopeSpans of listOr(resourceSpans.scopeSpans)) {
      if (!isJsonObject(scopeSpans)) continue;
      const context: ScopeContext = { resource, scope: scopeOf(scopeSpans) };
      for (const span of listOr(scopeSpans.spans)) {
        if (isJsonObject(span)) spanFacts(span, context, envelope, ids, facts);
      }
    }
  }
  return facts;
}
