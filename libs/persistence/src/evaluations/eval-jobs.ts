import type { DataSource, EntityManager } from 'typeorm';
import {
  EVAL_JOB_SCHEMA,
  type EvalJobPublication,
  type EvaluatedSpan,
  type EvaluationResult,
  type EvaluatorSettings,
  type PlanName,
  evalDeferralDelayMs,
  evalRunQuotaDecision,
  utcMonthOf,
} from '@app/domain';
import { returnedRows } from '../query-result';
import { queueUsage } from '../usage/usage-store';

/**
 * Creates the evaluation jobs a batch's spans call for: once per enabled evaluator and span
 * it selects (span type, name, sample), when the span has an output. Call in the live
 * projection's transaction, after the batch is written: a span whose output arrives in a
 * later batch is scheduled then, and a redelivered batch schedules nothing twice.
 * Returns how many jobs it created.
 */
export async function scheduleEvaluations(manager: EntityManager, spans: { projectId: string; id: string }[]): Promise<number> {
  if (!spans.length) return 0;
  const projectIds = [...new Set(spans.map((s) => s.projectId))];
  const evaluated: { project_id: string }[] = await manager.query('SELECT DISTINCT project_id FROM evaluators WHERE enabled AND project_id = ANY($1::uuid[])', [projectIds]);
  if (!evaluated.length) return 0;
  const withEvaluators = new Set(evaluated.map((r) => r.project_id));
  const candidates = spans.filter((s) => withEvaluators.has(s.projectId)).map((s) => ({ project_id: s.projectId, id: s.id }));
  const created: unknown[] = await manager.query(
    `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id)
     SELECT p.org_id, s.project_id, e.id, s.trace_id, s.id
       FROM (SELECT DISTINCT project_id, id FROM jsonb_to_recordset($1::jsonb) AS r (project_id uuid, id uuid)) b
       JOIN spans s ON s.project_id = b.project_id AND s.id = b.id
       JOIN evaluators e ON e.project_id = s.project_id AND e.enabled
       JOIN projects p ON p.id = s.project_id
      WHERE s.output IS NOT NULL AND s.trace_id IS NOT NULL
        AND e.filter -> 'spanTypes' ? s.type
        AND (jsonb_array_length(e.filter -> 'names') = 0 OR e.filter -> 'names' ? s.name)
        AND spanlog_sample(e.id, s.id) < (e.filter ->> 'sampleRate')::double precision
      ORDER BY e.id, s.project_id, s.id
     ON CONFLICT (evaluator_id, project_id, span_id) DO NOTHING
     RETURNING id`,
    [JSON.stringify(candidates)],
  );
  return created.length;
}

/**
 * Hands the queued jobs that are due to `publish` and marks them published once it resolved,
 * in one transaction that locks them (SKIP LOCKED: relays never publish a job twice at once;
 * a crash between publish and commit publishes again, and the message id drops it).
 */
export async function relayEvalJobs(db: DataSource, limit: number, publish: (jobs: EvalJobPublication[]) => Promise<void>): Promise<number> {
  return db.transaction(async (m) => {
    const rows: { jobId: string; orgId: string; projectId: string; evaluatorId: string; deferrals: number }[] = await m.query(
      `SELECT id AS "jobId", org_id AS "orgId", project_id AS "projectId", evaluator_id AS "evaluatorId", deferrals
         FROM eval_jobs WHERE status = 'queued' AND available_at <= now() ORDER BY available_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (!rows.length) return 0;
    await publish(rows.map(({ deferrals, ...r }) => ({ message: { schema: EVAL_JOB_SCHEMA, ...r }, deferrals })));
    await m.query(`UPDATE eval_jobs SET status = 'published' WHERE id = ANY($1::uuid[]) AND status = 'queued'`, [rows.map((r) => r.jobId)]);
    return rows.length;
  });
}

/** A job cleared to run: what the call needs, but its evaluator's secrets (readEvaluatorSecrets). */
export interface EvaluationToRun {
  jobId: string;
  orgId: string;
  projectId: string;
  evaluator: Omit<EvaluatorSettings, 'headers'> & { id: string };
  span: EvaluatedSpan;
}

export type ClaimedJob =
  | { kind: 'run'; run: EvaluationToRun }
  | { kind: 'skipped'; reason: string }
  | { kind: 'finished' }
  /** Its URL had no room (`admit` said no): back in the queue for `delayMs`. */
  | { kind: 'deferred'; delayMs: number };

interface JobRow {
  status: string;
  org_id: string;
  project_id: string;
  plan: PlanName | null;
  evaluator_id: string | null;
  name: string | null;
  url: string;
  timeout_ms: number;
  retries: number;
  filter: EvaluatorSettings['filter'];
  enabled: boolean | null;
  span_found: boolean;
  deferrals: number;
  trace_id: string;
  span_id: string;
  input: EvaluatedSpan['input'];
  output: EvaluatedSpan['output'];
}

/**
 * Decides whether a job runs, and if so marks it running, under a lock per organization so
 * that concurrent jobs of one organization cannot overrun its eval quota (CONTRACT "Quotas
 * and plans": at the Free limit the job is recorded as skipped, and not counted). A job
 * already done or skipped (a redelivery) is `finished`; one found running (its worker died
 * mid-call) runs again without being counted twice. A job that would run asks `admit` for
 * room at its URL; without it, the job is deferred (queued again, due after a backoff) and
 * its quota is not taken.
 */
export async function claimEvalJob(db: DataSource, jobId: string, nowMs: number, admit: (url: string) => boolean = () => true): Promise<ClaimedJob> {
  return db.transaction(async (m) => {
    const [job]: JobRow[] = await m.query(
      `SELECT j.status, j.org_id, j.project_id, o.plan, e.id AS evaluator_id, e.name, e.url, e.timeout_ms, e.retries, e.filter, e.enabled,
              s.id IS NOT NULL AS span_found, j.deferrals, j.trace_id, j.span_id, s.input, s.output
         FROM eval_jobs j
         LEFT JOIN organizations o ON o.id = j.org_id
         LEFT JOIN evaluators e ON e.id = j.evaluator_id
         LEFT JOIN spans s ON s.project_id = j.project_id AND s.id = j.span_id
        WHERE j.id = $1`,
      [jobId],
    );
    // The job went with its evaluator (cascade) or never existed here.
    if (!job) return { kind: 'finished' };
    if (job.status === 'done' || job.status === 'skipped') return { kind: 'finished' };
    const skip = async (reason: string): Promise<ClaimedJob> => {
      await m.query(`UPDATE eval_jobs SET status = 'skipped', reason = $2, finished_at = now() WHERE id = $1`, [jobId, reason]);
      return { kind: 'skipped', reason };
    };
    if (!job.enabled) return skip('the evaluator is disabled');
    if (!job.span_found) return skip('the span no longer exists (deleted by retention)');
    if (!job.plan) return skip('the organization no longer exists');
    if (!admit(job.url)) {
      const delayMs = evalDeferralDelayMs(job.deferrals);
      await m.query(
        `UPDATE eval_jobs SET status = 'queued', started_at = NULL, deferrals = deferrals + 1, available_at = now() + $2 * interval '1 millisecond' WHERE id = $1`,
        [jobId, delayMs],
      );
      return { kind: 'deferred', delayMs };
    }
    if (job.status !== 'running') {
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`spanlog:eval-quota:${job.org_id}`]);
      const monthStart = `${utcMonthOf(nowMs)}-01T00:00:00Z`;
      const [{ used }] = await m.query(
        `SELECT count(*)::int AS used FROM eval_jobs WHERE org_id = $1 AND status IN ('running', 'done') AND started_at >= $2`,
        [job.org_id, monthStart],
      );
      const decision = evalRunQuotaDecision(job.plan, used, nowMs);
      if (!decision.allowed) return skip(`quota: ${decision.message}`);
      await m.query(`UPDATE eval_jobs SET status = 'running', started_at = $2 WHERE id = $1`, [jobId, new Date(nowMs).toISOString()]);
    }
    return {
      kind: 'run',
      run: {
        jobId,
        orgId: job.org_id,
        projectId: job.project_id,
        evaluator: {
          id: job.evaluator_id as string,
          name: job.name as string,
          url: job.url,
          timeoutMs: job.timeout_ms,
          retries: job.retries,
          filter: job.filter,
          enabled: true,
        },
        span: { traceId: job.trace_id, spanId: job.span_id, input: job.input, output: job.output },
      },
    };
  });
}

/**
 * Records a run's result and counts the run (SPEC 6.1 rule 6) in one transaction: a run is
 * counted exactly when its job becomes done. The score itself reaches the read model
 * through INGEST, published before this.
 */
export async function finishEvalJob(db: DataSource, run: EvaluationToRun, result: EvaluationResult): Promise<void> {
  await db.transaction(async (m) => {
    const [row] = returnedRows<{ started_at: Date }>(
      await m.query(
        `UPDATE eval_jobs SET status = 'done', score = $2, pass = $3, reason = $4, finished_at = now()
          WHERE id = $1 AND status = 'running' RETURNING started_at`,
        [run.jobId, result.score, result.pass, result.reason],
      ),
    );
    if (!row) return;
    await queueUsage(m, [{ orgId: run.orgId, month: utcMonthOf(row.started_at.getTime()), metric: 'eval_runs', n: 1 }]);
  });
}
