import { DomainError, validationError } from '../errors';
import { SPANLOG_NAMESPACE, nativeId, spanIdOf, traceIdOf, uuidV5 } from '../ids';
import { sanitizeJson } from '../json/sanitize';
import { isJsonObject } from '../json/types';
import { MAX_SCORES_PER_REQUEST } from '../limits';
import { ScoreBody, scoreDataTypeOf } from '../native/native-events.dto';
import { validateDto } from '../validation';
import type { FactTarget } from '../native/native-to-facts';
import { type ScoreDelta, type ScoreFields, type TelemetryFacts, emptyFacts, stamped, versionOf } from '../telemetry/records';

/** Ids of scores sent without one; a namespace of their own keeps them apart from client ids. */
const SCORE_CONTENT_NAMESPACE = uuidV5('scores endpoint content', SPANLOG_NAMESPACE);

/**
 * The scores of a POST /api/v1/scores body (CONTRACT "Scores"): one score, or `{ scores: [...] }`
 * of up to MAX_SCORES_PER_REQUEST. All or nothing: a 400 names the first field at fault.
 * Pure and deterministic: the processor runs it again on the stored bytes.
 */
export function validateScoreRequest(body: unknown): ScoreBody[] {
  if (!isJsonObject(body)) throw validationError('body must be a score object or an object with a "scores" array');
  if (!Object.hasOwn(body, 'scores')) return [checked(body, 'body')];
  const { scores } = body;
  if (!Array.isArray(scores)) throw validationError('scores: must be an array');
  if (scores.length > MAX_SCORES_PER_REQUEST) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `scores has ${scores.length} scores; at most ${MAX_SCORES_PER_REQUEST} are allowed`);
  }
  return scores.map((score, i) => checked(score, `scores[${i}]`));
}

/**
 * A valid score with its text as it is stored, NUL removed and unpaired surrogates replaced
 * (BAD_INPUTS 5), as a native batch's: the API's ids and config checks and the processor's rows
 * all read this form, so they agree and Postgres never sees what it refuses.
 */
function checked(score: unknown, path: string): ScoreBody {
  if (!isJsonObject(score)) throw validationError(`${path}: must be an object`);
  const result = validateDto(ScoreBody, score, path);
  if (!result.ok) throw validationError(result.message);
  return sanitizeJson(result.value);
}

/**
 * A score's id: the client's (`id`, kept as any native id is), or derived from the score's
 * content, so a retried request stores each score once. Two identical scores without an id
 * are therefore one score; send ids to keep them apart.
 */
export function scoreIdOf(score: ScoreBody): { id: string; externalId: string | null } {
  if (score.id !== undefined) return nativeId(score.id);
  return { id: uuidV5(JSON.stringify(score), SCORE_CONTENT_NAMESPACE), externalId: null };
}

/**
 * The trace and span a score is about, named as any route names them (`traceIdOf`,
 * `spanIdOf`): a 32-hex trace id is the OTel trace, a 16-hex span id of such a trace its OTel
 * span; anything else is a native id or a UUID.
 */
export function scoreTargetOf(score: Pick<ScoreBody, 'traceId' | 'spanId'>): { traceId: string; spanId: string | undefined } {
  return {
    traceId: traceIdOf(score.traceId).id,
    spanId: score.spanId === undefined ? undefined : spanIdOf(score.traceId, score.spanId).id,
  };
}

/** What a score body states, of the trace and span `ids` name (as the caller read them), at `at`: the native batch's and POST /api/v1/scores' score alike. */
export function scoreFieldsOf(body: ScoreBody, ids: Pick<ScoreBody, 'traceId' | 'spanId'>, at: string): Partial<ScoreFields> {
  return {
    ...scoreTargetOf(ids),
    name: body.name,
    value: body.value,
    dataType: body.dataType ?? scoreDataTypeOf(body.value),
    comment: body.comment,
    metadata: body.metadata,
    source: body.source ?? 'API',
    timestamp: at,
  };
}

/**
 * What the scores of one request state. They are stamped with the time the API received them,
 * so a score sent again with the same id and other values replaces the older one.
 */
export function scoreRequestToFacts(scores: ScoreBody[], target: FactTarget): TelemetryFacts {
  const facts = emptyFacts();
  for (const score of scores) {
    const { id, externalId } = scoreIdOf(score);
    const values = scoreFieldsOf(score, score, target.receivedAt);
    const delta: ScoreDelta = {
      projectId: target.projectId,
      id,
      externalId,
      createdAt: target.receivedAt,
      ...stamped(values, versionOf(target.receivedAt, id)),
    };
    facts.scores.push(delta);
  }
  return facts;
}
