import type { DataSource } from 'typeorm';
import { MAX_TRACES_PER_DELETION, PLANS, type PlanName, type TraceDeletionBatch, retentionCutoff } from '@app/domain';
import { RetentionQueries, withAdvisoryLock } from '@app/persistence';
import { type DeletedRows, deleteTraces } from '../telemetry/tables/telemetry-writer';

/** What a run needs from the event log; the processor and the CLI each bring their connection. */
export interface RetentionLog {
  /** Appends the deletion of one project's traces; resolves once it is durable. */
  appendDeletion(target: { orgId: string; projectId: string; receivedAt: string }, batch: TraceDeletionBatch): Promise<unknown>;
  /** Removes the organization's requests received before `cutoff` from the stream, leaving every consumer where it is; resolves with how many. */
  removeBefore(orgId: string, cutoff: Date): Promise<number>;
}

export interface OrganizationRetention extends DeletedRows {
  orgId: string;
  plan: PlanName;
  cutoff: string;
  removedMessages: number;
}

export type RetentionRun = { ran: false; reason: string } | { ran: true; now: string; organizations: OrganizationRetention[] };

/** One run at a time across every processor and CLI (STACK_NOTES: advisory lock). */
const RETENTION_LOCK = 'spanlog.retention';

/**
 * The retention cleanup (SPEC 8.5, DESIGN "Projections"): for every organization whose plan
 * has a retention, deletes the traces created before its cutoff with their spans and scores,
 * at most MAX_TRACES_PER_DELETION per transaction so ingestion is never held up. Each batch is
 * first appended to INGEST as a deletion, so the projections honour it live and on replay,
 * then applied here at once. Finally the organization's older requests are removed from the
 * stream. Enterprise is never cleaned. Safe to repeat: a second run finds nothing.
 */
export async function runRetention(db: DataSource, log: RetentionLog, nowMs: number): Promise<RetentionRun> {
  const run = await withAdvisoryLock(db, RETENTION_LOCK, async (): Promise<RetentionRun> => {
    const now = new Date(nowMs).toISOString();
    const plansWithRetention = Object.entries(PLANS)
      .filter(([, p]) => p.retentionDays !== null)
      .map(([name]) => name as PlanName);
    const queries = new RetentionQueries(db);
    const orgs = await queries.organizationsOnPlans(plansWithRetention);
    const organizations: OrganizationRetention[] = [];
    for (const org of orgs) {
      const cutoff = retentionCutoff(org.plan, nowMs) as Date;
      const deleted = await cleanOrganization(db, queries, log, org.id, cutoff, now);
      organizations.push({
        orgId: org.id,
        plan: org.plan,
        cutoff: cutoff.toISOString(),
        ...deleted,
        removedMessages: await log.removeBefore(org.id, cutoff),
      });
    }
    return { ran: true, now, organizations };
  });
  return run.locked ? run.value : { ran: false, reason: 'another retention run holds the lock' };
}

async function cleanOrganization(
  db: DataSource,
  queries: RetentionQueries,
  log: RetentionLog,
  orgId: string,
  cutoff: Date,
  now: string,
): Promise<DeletedRows> {
  const total: DeletedRows = { traces: 0, spans: 0, scores: 0 };
  for (const projectId of await queries.projectIdsOf(orgId)) {
    for (;;) {
      const traceIds = await queries.tracesCreatedBefore(projectId, cutoff, MAX_TRACES_PER_DELETION);
      if (!traceIds.length) break;
      // Counted before the deletion is appended: the live projection applies it too, and
      // whichever of the two deletes first, these are the rows that go.
      const deleted = await queries.rowsOfTraces(projectId, traceIds);
      await log.appendDeletion({ orgId, projectId, receivedAt: now }, { reason: 'retention', cutoff: cutoff.toISOString(), traceIds });
      await db.transaction((m) =>
        deleteTraces(
          m,
          traceIds.map((id) => ({ projectId, id, deletedAt: now })),
        ),
      );
      total.traces += deleted.traces;
      total.spans += deleted.spans;
      total.scores += deleted.scores;
    }
  }
  return total;
}
