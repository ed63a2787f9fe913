import { readMessage } from '../events/read-message';
import { SPANLOG_NAMESPACE, spanIdOf, traceIdOf, uuidV5 } from '../ids';
import { type RunItemDelta, type TelemetryFacts, emptyFacts, versionOf } from '../telemetry/records';
import { type JsonObject, isJsonObject } from '../json/types';
import { Optional, type Problem, Required, requiredText, ruleOf, uuidShaped, validateDto } from '../validation';

/** Run item ids: one per run and dataset item, so linking an item again in the same run replaces its trace. */
const RUN_ITEM_NAMESPACE = uuidV5('dataset run items', SPANLOG_NAMESPACE);

export const runItemIdOf = (runId: string, datasetItemId: string): string => uuidV5(`${runId}:${datasetItemId}`, RUN_ITEM_NAMESPACE);

/** One run item of an `ingest.run-items/v1` message: the run and item the API resolved, the trace and span as the client named them. */
export class RunItemRecord {
  @Required(uuidShaped) id: string;
  @Required(uuidShaped) runId: string;
  @Required(requiredText(255)) datasetItemId: string;
  @Required(requiredText(256)) traceId: string;
  @Optional(requiredText(256)) spanId?: string;
}

const MAX_RUN_ITEMS_PER_MESSAGE = 1_000;

/** Each record read by its own rules; the first one at fault is named (`[2].runId: must be a UUID`). */
function runItemsProblem(value: unknown): Problem {
  if (!Array.isArray(value) || value.length > MAX_RUN_ITEMS_PER_MESSAGE)
    return `must be an array of at most ${MAX_RUN_ITEMS_PER_MESSAGE} run items`;
  for (let i = 0; i < value.length; i++) {
    const check = isJsonObject(value[i]) ? validateDto(RunItemRecord, value[i] as JsonObject, '') : null;
    if (!check) return { path: `[${i}]`, message: 'must be an object' };
    if (!check.ok) return { path: `[${i}]`, message: check.message };
  }
  return null;
}

/** The data of an `ingest.run-items/v1` message. */
class RunItemsMessage {
  @Required(ruleOf(runItemsProblem, { type: 'array', maxItems: MAX_RUN_ITEMS_PER_MESSAGE })) runItems: RunItemRecord[];
}

export interface RunItemsMessageData {
  runItems: RunItemRecord[];
}

export const parseRunItemsMessage = (value: unknown): RunItemsMessageData =>
  readMessage(RunItemsMessage, value, 'not an ingest.run-items/v1 message');

/**
 * What a run-items message states. The trace and span ids are mapped here, as any score's are
 * (`traceIdOf`, `spanIdOf`), so a rebuild applies a corrected mapping; the time the API received
 * the link is its version, so the newer link of an item in a run wins.
 */
export function runItemsToFacts(data: RunItemsMessageData, target: { projectId: string; receivedAt: string }): TelemetryFacts {
  const facts = emptyFacts();
  facts.runItems = data.runItems.map((r): RunItemDelta => {
    const trace = traceIdOf(r.traceId);
    const span = r.spanId === undefined ? null : spanIdOf(r.traceId, r.spanId);
    return {
      projectId: target.projectId,
      id: r.id,
      runId: r.runId,
      datasetItemId: r.datasetItemId,
      traceId: trace.id,
      spanId: span?.id ?? null,
      otelTraceId: trace.otelTraceId,
      otelSpanId: span?.otelSpanId ?? null,
      createdAt: target.receivedAt,
      version: versionOf(target.receivedAt, r.id),
    };
  });
  return facts;
}
