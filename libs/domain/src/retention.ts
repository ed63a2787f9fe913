import { readMessage } from './events/read-message';
import { PLANS, type PlanName } from './limits';
import type { TraceDeletion } from './telemetry/records';
import { Required, dateText, listOf, oneOf, uuidShaped } from './validation';

const DAY_MS = 86_400_000;

/** Traces created before this instant are expired under the plan (SPEC 8.5); null: kept forever. */
export function retentionCutoff(plan: PlanName, nowMs: number): Date | null {
  const days = PLANS[plan].retentionDays;
  return days === null ? null : new Date(nowMs - days * DAY_MS);
}

/** Most traces one deletion message names: bounded batches that never hold long locks. */
export const MAX_TRACES_PER_DELETION = 1_000;

/** The data of an `ingest.deleted/v1` message. */
export interface TraceDeletionBatch {
  reason: 'retention';
  /** Traces created before this instant were deleted. */
  cutoff: string;
  /** Trace UUIDs of the envelope's project. */
  traceIds: string[];
}

class TraceDeletionFields implements TraceDeletionBatch {
  @Required(oneOf(['retention'])) reason: 'retention';
  @Required(dateText) cutoff: string;
  @Required(listOf(uuidShaped, MAX_TRACES_PER_DELETION)) traceIds: string[];
}

export const parseTraceDeletionBatch = (value: unknown): TraceDeletionBatch =>
  readMessage(TraceDeletionFields, value, 'not an ingest.deleted/v1 message');

export const deletionFacts = (batch: TraceDeletionBatch, target: { projectId: string; receivedAt: string }): TraceDeletion[] =>
  batch.traceIds.map((id) => ({ projectId: target.projectId, id, deletedAt: target.receivedAt }));
