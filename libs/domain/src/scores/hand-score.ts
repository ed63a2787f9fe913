import { readMessage } from '../events/read-message';
import {
  SCORE_DATA_TYPES,
  type ScoreDataType,
  type ScoreDelta,
  type TelemetryFacts,
  emptyFacts,
  stamped,
  versionOf,
} from '../telemetry/records';
import { Optional, Required, anyText, email, oneOf, text, uuidShaped } from '../validation';

/**
 * A score given by hand (issue 30) as the INGEST stream carries it (`ingest.hand-score/v1`):
 * the whole score on every change, with its author, or its removal. It travels with the rest
 * of the telemetry, so rebuilds, replays, exports, retention and verify treat it as any score.
 */
export type HandScoreMessage = HandScoreUpsert | HandScoreRemoval;

export interface HandScoreUpsert {
  op: 'upsert';
  /** One per change: the version of the fields it writes, so a later change wins. */
  changeId: string;
  id: string;
  traceId: string;
  spanId?: string;
  name: string;
  value: number | string | boolean;
  dataType: ScoreDataType;
  comment: string;
  authorUserId: string;
  authorEmail: string;
}

export interface HandScoreRemoval {
  op: 'delete';
  id: string;
  traceId: string;
  spanId?: string;
}

const isValue = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

class HandScoreOp {
  @Required(oneOf(['upsert', 'delete'])) op: 'upsert' | 'delete';
}

class HandScoreRemovalFields implements HandScoreRemoval {
  @Required(oneOf(['delete'])) op: 'delete';
  @Required(uuidShaped) id: string;
  @Required(uuidShaped) traceId: string;
  @Optional(uuidShaped) spanId?: string;
}

class HandScoreUpsertFields implements HandScoreUpsert {
  @Required(oneOf(['upsert'])) op: 'upsert';
  @Required(uuidShaped) changeId: string;
  @Required(uuidShaped) id: string;
  @Required(uuidShaped) traceId: string;
  @Optional(uuidShaped) spanId?: string;
  @Required(text(1, 1000)) name: string;
  @Required({ test: isValue, message: 'must be a number, a string or a boolean' }) value: number | string | boolean;
  @Required(oneOf(SCORE_DATA_TYPES)) dataType: ScoreDataType;
  @Required({ test: (v) => typeof v === 'string', message: 'must be a string' }) comment: string;
  @Required(anyText) authorUserId: string;
  @Required(email) authorEmail: string;
}

const REFUSAL = 'not an ingest.hand-score/v1 message';

export function parseHandScoreMessage(value: unknown): HandScoreMessage {
  const { op } = readMessage(HandScoreOp, value, REFUSAL);
  return op === 'delete' ? readMessage(HandScoreRemovalFields, value, REFUSAL) : readMessage(HandScoreUpsertFields, value, REFUSAL);
}

/** What a hand-score message states, at the time the API took it. */
export function handScoreFacts(message: HandScoreMessage, target: { projectId: string; receivedAt: string }): TelemetryFacts {
  const facts = emptyFacts();
  if (message.op === 'delete') {
    facts.scoreDeletions.push({
      projectId: target.projectId,
      id: message.id,
      traceId: message.traceId,
      spanId: message.spanId,
      deletedAt: target.receivedAt,
    });
    return facts;
  }
  const { id, changeId, op: _op, ...fields } = message;
  const delta: ScoreDelta = {
    projectId: target.projectId,
    id,
    externalId: null,
    createdAt: target.receivedAt,
    ...stamped({ ...fields, source: 'ANNOTATION' as const, timestamp: target.receivedAt }, versionOf(target.receivedAt, changeId)),
  };
  facts.scores.push(delta);
  return facts;
}
