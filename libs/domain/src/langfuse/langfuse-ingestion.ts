/**
 * Langfuse's batch ingestion (`POST /api/public/ingestion`) onto Spanlog's native batch:
 * the event types its SDKs still send are ours already (`trace-create`, `span-*`,
 * `generation-*`, `event-create`, `score-create`, `sdk-log`); the older
 * `observation-create|update` name the kind in `body.type`, and become the event of that kind.
 */
import { isJsonObject } from '../json/types';

/** `observation-*` bodies name their kind; Langfuse's kinds and the native event each becomes. */
const OBSERVATION_EVENTS: Readonly<Record<string, { create: string; update: string }>> = {
  SPAN: { create: 'span-create', update: 'span-update' },
  GENERATION: { create: 'generation-create', update: 'generation-update' },
  // An event has no update in either API: a repeated create merges like any event.
  EVENT: { create: 'event-create', update: 'event-create' },
};

/** One event's native type: Langfuse's own where it is ours, the observation's kind for the older ones, else unchanged (validation names it). */
function nativeTypeOf(type: unknown, body: unknown): unknown {
  if (type !== 'observation-create' && type !== 'observation-update') return type;
  const kind = isJsonObject(body) && typeof body.type === 'string' ? body.type.toUpperCase() : 'SPAN';
  const events = Object.hasOwn(OBSERVATION_EVENTS, kind) ? OBSERVATION_EVENTS[kind] : undefined;
  if (!events) return type;
  return type === 'observation-create' ? events.create : events.update;
}

/**
 * A Langfuse ingestion body as a native batch body, event by event and in order, so that
 * each answer of the native validation still names the event by its index and id. A body
 * without a `batch` array is returned as is: the native validation refuses it with its reason.
 */
export function langfuseIngestionToNative(body: unknown): unknown {
  if (!isJsonObject(body) || !Array.isArray(body.batch)) return body;
  return {
    batch: body.batch.map((event) => {
      if (!isJsonObject(event)) return event;
      const type = nativeTypeOf(event.type, event.body);
      if (type === event.type) return event;
      const { type: _kind, ...rest } = isJsonObject(event.body) ? event.body : {};
      return { ...event, type, body: isJsonObject(event.body) ? rest : event.body };
    }),
  };
}

/** Langfuse's 207 answer: each event by id with its HTTP status, refused ones with the reason. */
export interface LangfuseIngestionAnswer {
  successes: { id: string; status: number }[];
  errors: { id: string; status: number; message: string; error: string }[];
}
