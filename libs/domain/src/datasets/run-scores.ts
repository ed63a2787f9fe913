import { validationError } from '../errors';
import { sanitizeJson } from '../json/sanitize';
import { type JsonObject, isJsonObject } from '../json/types';
import { SCORE_FIELD_RULES, type ScoreValue, scoreDataTypeOf } from '../native/native-events.dto';
import type { ScoreDataType, ScoreSource } from '../telemetry/records';
import { Optional, Required, anyText, jsonObject, requiredText, validateDto } from '../validation';

/**
 * A score of a dataset run as a whole (Langfuse's `datasetRunId` on `score-create`, which
 * `runExperiment`'s run evaluators send): no trace, so it is kept with the run, like the run's
 * description, rather than with telemetry.
 */
export class RunScoreBody {
  @Optional(requiredText(1000)) id?: string;
  @Required(requiredText(256)) datasetRunId: string;
  @Required(SCORE_FIELD_RULES.name) name: string;
  @Required(SCORE_FIELD_RULES.value) value: ScoreValue;
  @Optional(SCORE_FIELD_RULES.dataType) dataType?: ScoreDataType;
  @Optional(SCORE_FIELD_RULES.comment) comment?: string;
  @Optional(jsonObject) metadata?: JsonObject;
  @Optional(SCORE_FIELD_RULES.source) source?: ScoreSource;
  /** Langfuse's; accepted and not kept, as on trace scores. */
  @Optional(anyText) environment?: string;
  @Optional(anyText) configId?: string;
}

/** A run score as stored: the client's id, else the event's, so a retried event is one score. */
export interface RunScoreInput {
  id: string;
  runId: string;
  name: string;
  value: ScoreValue;
  dataType: ScoreDataType;
  comment: string | null;
  metadata: JsonObject | null;
  source: ScoreSource;
}

/** A Langfuse event that scores a dataset run: a `score-create` naming `datasetRunId` and no trace. */
export function isRunScoreEvent(event: unknown): boolean {
  return (
    isJsonObject(event) &&
    event.type === 'score-create' &&
    isJsonObject(event.body) &&
    event.body.datasetRunId !== undefined &&
    event.body.traceId === undefined
  );
}

/**
 * A Langfuse ingestion body split in two: the run scores, by their index in the batch, and
 * the body of every other event, for the telemetry path. A body that is no batch is all rest.
 */
export function splitRunScoreEvents(body: unknown): { runScores: { index: number; event: unknown }[]; rest: unknown } {
  if (!isJsonObject(body) || !Array.isArray(body.batch)) return { runScores: [], rest: body };
  const runScores = body.batch.flatMap((event, index) => (isRunScoreEvent(event) ? [{ index, event }] : []));
  if (!runScores.length) return { runScores, rest: body };
  return { runScores, rest: { ...body, batch: body.batch.filter((event) => !isRunScoreEvent(event)) } };
}

/** One run score event's score, or a 400 naming the field (`body.value`). */
export function validateRunScoreEvent(event: unknown): RunScoreInput {
  if (!isRunScoreEvent(event)) throw validationError('body.datasetRunId: a run score names its run and no trace');
  const { id: eventId, body } = event as { id?: unknown; body: JsonObject };
  const result = validateDto(RunScoreBody, body, 'body');
  if (!result.ok) throw validationError(result.message);
  const score = result.value;
  const id = score.id ?? (typeof eventId === 'string' && eventId ? eventId : undefined);
  if (id === undefined) throw validationError('body.id: a run score needs an id, in its body or as the event id');
  return {
    id,
    runId: score.datasetRunId,
    name: score.name,
    value: score.value,
    dataType: score.dataType ?? scoreDataTypeOf(score.value),
    comment: score.comment ?? null,
    metadata: score.metadata ? (sanitizeJson(score.metadata) as JsonObject) : null,
    source: score.source ?? 'API',
  };
}
