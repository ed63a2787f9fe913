/**
 * OTLP log records to facts: records that carry GenAI content (a `gen_ai.*` content event
 * name, and the trace and span they belong to) set that span's input and output, whichever
 * of the span and its records arrives first. Every other record states nothing Spanlog keeps.
 */
import { createHash } from 'node:crypto';
import {
  type JsonObject,
  type SpanDelta,
  type SpanFields,
  type TelemetryFacts,
  type TraceDelta,
  emptyFacts,
  isJsonObject,
  otelSpanUuid,
  otelTraceUuid,
  sanitizeText,
  stamped,
  versionOf,
} from '@app/domain';
import { decodeAnyValue, decodeAttributes } from '../attributes';
import { contentOfEvents, isGenAiContentEvent } from '../conventions/gen-ai';
import type { EventView } from '../conventions/readers';
import type { OtlpEnvelope } from '../otlp-to-facts';
import { isoOfUnixNano, spanHexOf, traceHexOf } from '../otlp-wire';
import type { ExportLogsServiceRequest, LogRecord, ResourceLogs, ScopeLogs } from './otlp-logs-types';

type Obj = Record<string, unknown>;
const objects = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);

/** The record's event name: the `eventName` field (proto 1.5+), else the `event.name` attribute older SDKs send. */
function eventNameOf(record: Obj, attributes: JsonObject): string | undefined {
  if (typeof record.eventName === 'string' && record.eventName !== '') return record.eventName;
  const attribute = Object.hasOwn(attributes, 'event.name') ? attributes['event.name'] : undefined;
  return typeof attribute === 'string' && attribute !== '' ? attribute : undefined;
}

/** Whether a record attaches content to a span; decodes only the attributes it needs to know. */
function isAttachable(record: Obj): boolean {
  if (traceHexOf(record.traceId) === null || spanHexOf(record.spanId) === null) return false;
  const name = eventNameOf(record, decodeAttributes(record.attributes));
  return name !== undefined && isGenAiContentEvent(name);
}

/**
 * The export cut down to the records that attach content to a span, each group keeping its
 * resource and scope; null when none does. What Spanlog stores of a logs export: other log
 * records are counted in the answer and dropped.
 */
export function genAiLogsOf(body: ExportLogsServiceRequest): { request: ExportLogsServiceRequest; records: number } | null {
  let records = 0;
  const resourceLogs: ResourceLogs[] = [];
  for (const resource of objects((body as Obj).resourceLogs)) {
    const scopeLogs: ScopeLogs[] = [];
    for (const scope of objects(resource.scopeLogs)) {
      const kept = objects(scope.logRecords).filter(isAttachable) as LogRecord[];
      if (kept.length === 0) continue;
      records += kept.length;
      scopeLogs.push({ ...(scope as ScopeLogs), logRecords: kept });
    }
    if (scopeLogs.length > 0) resourceLogs.push({ ...(resource as ResourceLogs), scopeLogs });
  }
  return records > 0 ? { request: { resourceLogs }, records } : null;
}

interface SpanRecords {
  traceHex: string;
  spanHex: string;
  events: EventView[];
  /** The latest time among the records, ISO; null when none says when. */
  latest: string | null;
}

function recordsBySpan(body: ExportLogsServiceRequest): SpanRecords[] {
  const bySpan = new Map<string, SpanRecords>();
  for (const resource of objects((body as Obj).resourceLogs)) {
    for (const scope of objects(resource.scopeLogs)) {
      for (const record of objects(scope.logRecords)) {
        const traceHex = traceHexOf(record.traceId);
        const spanHex = spanHexOf(record.spanId);
        const attributes = decodeAttributes(record.attributes);
        const name = eventNameOf(record, attributes);
        if (traceHex === null || spanHex === null || name === undefined || !isGenAiContentEvent(name)) continue;
        const key = `${traceHex}:${spanHex}`;
        const group = bySpan.get(key) ?? { traceHex, spanHex, events: [], latest: null };
        bySpan.set(key, group);
        group.events.push({ name: sanitizeText(name), attributes, body: decodeAnyValue(record.body) });
        const time = isoOfUnixNano(record.timeUnixNano) ?? isoOfUnixNano(record.observedTimeUnixNano);
        if (time !== null && (group.latest === null || time > group.latest)) group.latest = time;
      }
    }
  }
  return [...bySpan.values()];
}

/**
 * The time part of every log-derived version: before any time a client may send
 * (TELEMETRY_RANGES starts in 1970) or the server stamps, so log content never outranks what a
 * span or a native event states, however its record is dated.
 */
export const LOG_CONTENT_VERSION_TIME = '0000-01-01T00:00:00.000Z';

/**
 * The facts a validated logs export states: per span its records name, the input and output
 * `contentOfEvents` reads from them (the same rules as span events), and the trace mentioned.
 * Content a span states in its attributes wins and records fill only what it leaves empty, in
 * any order of arrival: their versions sort below every other (LOG_CONTENT_VERSION_TIME). A
 * record's own time cannot decide that, since a client dates it as it likes (a record dated
 * 2099 replaced the span's own input), and capping it at the span's version would need the
 * span, which may arrive later in another message. Among records the newest still wins: the
 * record's time leads the version's id part, then a digest of the content, so two exports for
 * one span at the same instant resolve the same way in any order.
 */
export function otlpLogsToFacts(body: ExportLogsServiceRequest, envelope: OtlpEnvelope): TelemetryFacts {
  const facts = emptyFacts();
  for (const group of recordsBySpan(body)) {
    const { input, output } = contentOfEvents(group.events);
    if (input === undefined && output === undefined) continue;
    const at = group.latest ?? envelope.receivedAt;
    const traceId = otelTraceUuid(group.traceHex);
    const values: Partial<SpanFields> = { traceId, input: input?.value, output: output?.value };
    const digest = createHash('sha1')
      .update(JSON.stringify([values.input ?? null, values.output ?? null]))
      .digest('hex')
      .slice(0, 16);
    facts.spans.push({
      projectId: envelope.projectId,
      id: otelSpanUuid(group.traceHex, group.spanHex),
      otelSpanId: group.spanHex,
      externalId: null,
      createdAt: envelope.receivedAt,
      ...stamped(values, versionOf(LOG_CONTENT_VERSION_TIME, `logs:${at}:${group.spanHex}:${digest}`)),
    } satisfies SpanDelta);
    // The trace is mentioned, as a span's is, so a span whose records come first still belongs to a trace row (retention finds it).
    facts.traces.push({
      projectId: envelope.projectId,
      id: traceId,
      otelTraceId: group.traceHex,
      externalId: null,
      createdAt: envelope.receivedAt,
      firstEventTime: at,
      minSpanStart: null,
      values: {},
      versions: {},
    } satisfies TraceDelta);
  }
  return facts;
}
