import {
  type MappedId,
  SPANLOG_NAMESPACE,
  type SpanIdentity,
  type TraceIdentity,
  legacyTraceIds,
  nativeId,
  spanIdOf,
  traceIdOf,
  uuidV5,
} from '../ids';
import { sanitizeJson, sanitizeText } from '../json/sanitize';
import {
  type ScoreDelta,
  type SpanDelta,
  type SpanFields,
  type TelemetryFacts,
  type TraceDelta,
  type TraceFields,
  type Version,
  emptyFacts,
  operationOfSpanType,
  stamped,
  versionOf,
} from '../telemetry/records';
import { scoreFieldsOf } from '../scores/score-request';
import { toIso } from '../time';
import { type UsageDetails, namedUsage, tokenTotalsOf, usageOfTotals } from '../telemetry/usage-details';
import type { TraceCreateBody } from './native-events.dto';
import type { ValidNativeEvent } from './validate-native-batch';

/** Where the events were accepted: the projection's project and its only clock. */
export interface FactTarget {
  projectId: string;
  receivedAt: string;
}

type SpanEvent = Extract<
  ValidNativeEvent,
  { type: 'span-create' | 'span-update' | 'generation-create' | 'generation-update' | 'event-create' }
>;
type ScoreEvent = Extract<ValidNativeEvent, { type: 'score-create' }>;

/** Sanitized before hashing: UUIDv5 hashes UTF-8 via encodeURIComponent, which throws on a lone surrogate. */
const mapId = (raw: string): MappedId => nativeId(sanitizeText(raw));
/** A 32-hex trace id names the OTel trace, and a 16-hex span id under it the OTel span (`traceIdOf`, `spanIdOf`). */
const mapTraceId = (raw: string): TraceIdentity => traceIdOf(sanitizeText(raw));
const mapSpanId = (rawTraceId: string, raw: string): SpanIdentity => spanIdOf(sanitizeText(rawTraceId), sanitizeText(raw));

/** Ids of scores sent without one; a namespace of their own keeps them apart from client ids. */
const SCORE_EVENT_NAMESPACE = uuidV5('native score-create event', SPANLOG_NAMESPACE);

function traceCreated(body: TraceCreateBody, at: string, version: Version, target: FactTarget): TraceDelta {
  const values: Partial<TraceFields> = {
    name: body.name,
    timestamp: body.timestamp,
    userId: body.userId,
    sessionId: body.sessionId,
    metadata: body.metadata,
    tags: body.tags,
    input: body.input,
    output: body.output,
    release: body.release,
    version: body.version,
    environment: body.environment,
  };
  return { ...traceMentioned(body.id, at, null, target), ...stamped(values, version) };
}

/**
 * A span names its trace, which may not exist yet: this creates it with no fields set, and
 * offers the span's start as the trace's timestamp until the trace says otherwise.
 */
function traceMentioned(traceId: string, at: string, spanStart: string | null, target: FactTarget): TraceDelta {
  const { id, otelTraceId, externalId } = mapTraceId(traceId);
  const legacyIds = legacyTraceIds(sanitizeText(traceId));
  return {
    projectId: target.projectId,
    id,
    otelTraceId,
    externalId,
    ...(legacyIds.length ? { legacyIds } : {}),
    createdAt: target.receivedAt,
    firstEventTime: at,
    minSpanStart: spanStart,
    values: {},
    versions: {},
  };
}

/** Usage by type: the types the event names, else its `usage` counts as input and output. */
function usageDetailsOf(
  named: Record<string, number> | undefined,
  input: number | undefined,
  output: number | undefined,
): UsageDetails | undefined {
  if (named !== undefined) return namedUsage(named);
  return usageOfTotals({ input, output }, []);
}

/** Only the fields the event carries, so that an update never clears what it does not mention. */
function spanValues(event: SpanEvent): Partial<SpanFields> {
  const { body } = event;
  const values: Partial<SpanFields> = {
    traceId: mapTraceId(body.traceId).id,
    parentId: body.parentObservationId === undefined ? undefined : mapSpanId(body.traceId, body.parentObservationId).id,
    name: body.name,
    startTime: body.startTime,
    input: body.input,
    output: body.output,
    metadata: body.metadata,
    level: body.level,
  };
  switch (event.type) {
    case 'span-create':
    case 'span-update':
      // A create without a type is CUSTOM; an update changes the type only when it names one.
      values.type = event.body.type ?? (event.type === 'span-create' ? 'CUSTOM' : undefined);
      values.endTime = event.body.endTime;
      values.statusMessage = event.body.statusMessage;
      break;
    case 'generation-create':
    case 'generation-update': {
      const generation = event.body;
      const { input, output, total } = generation.usage ?? {};
      if (event.type === 'generation-create') values.type = 'LLM';
      values.endTime = generation.endTime;
      values.statusMessage = generation.statusMessage;
      values.model = generation.model;
      values.modelParameters = generation.modelParameters;
      values.usageDetails = usageDetailsOf(generation.usageDetails, input, output);
      // Usage sent by type alone still has prompt and completion counts: the overview's tokens sum them.
      const fromTypes = generation.usage === undefined && values.usageDetails ? tokenTotalsOf(values.usageDetails) : {};
      const prompt = input ?? fromTypes.input;
      const completion = output ?? fromTypes.output;
      values.promptTokens = prompt;
      values.completionTokens = completion;
      values.totalTokens = total ?? (prompt !== undefined && completion !== undefined ? prompt + completion : undefined);
      values.cost = generation.cost;
      break;
    }
    case 'event-create':
      values.type = 'EVENT';
      values.endTime = event.body.startTime;
      break;
  }
  // The operation follows the type where the event states one; an update naming no type leaves both.
  values.operation = operationOfSpanType(values.type);
  return values;
}

function spanChanged(event: SpanEvent, values: Partial<SpanFields>, version: Version, target: FactTarget): SpanDelta {
  const { id, otelSpanId, externalId } = mapSpanId(event.body.traceId, event.body.id);
  return { projectId: target.projectId, id, otelSpanId, externalId, createdAt: target.receivedAt, ...stamped(values, version) };
}

function scoreCreated(event: ScoreEvent, at: string, version: Version, target: FactTarget): ScoreDelta {
  const { body } = event;
  // Without a client id the event names the score, so a retried event is still one score.
  const { id, externalId } =
    body.id === undefined ? { id: uuidV5(sanitizeText(event.id), SCORE_EVENT_NAMESPACE), externalId: null } : mapId(body.id);
  const values = scoreFieldsOf(
    body,
    { traceId: sanitizeText(body.traceId), spanId: body.spanId === undefined ? undefined : sanitizeText(body.spanId) },
    at,
  );
  return { projectId: target.projectId, id, externalId, createdAt: target.receivedAt, ...stamped(values, version) };
}

/**
 * What validated native events state about traces, spans and scores. Every field an event
 * sets carries its version (event timestamp, then event id), so the merge rule gives the same
 * rows whatever the order and however often events repeat. All text is made safe for Postgres.
 */
export function nativeEventsToFacts(events: ValidNativeEvent[], target: FactTarget): TelemetryFacts {
  const facts = emptyFacts();
  for (const event of events) {
    const at = toIso(event.timestampMs);
    const version = versionOf(at, event.id);
    switch (event.type) {
      case 'trace-create':
        facts.traces.push(traceCreated(event.body, at, version, target));
        break;
      case 'span-create':
      case 'span-update':
      case 'generation-create':
      case 'generation-update':
      case 'event-create': {
        const values = spanValues(event);
        facts.spans.push(spanChanged(event, values, version, target));
        facts.traces.push(traceMentioned(event.body.traceId, at, values.startTime ?? null, target));
        break;
      }
      case 'score-create':
        facts.scores.push(scoreCreated(event, at, version, target));
        break;
      case 'sdk-log':
        break;
      default: {
        const unhandled: never = event;
        throw new Error(`no mapping for native event type ${(unhandled as ValidNativeEvent).type}`);
      }
    }
  }
  return sanitizeJson(facts);
}
