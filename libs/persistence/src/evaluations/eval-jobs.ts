import type { EntityManager } from 'typeorm';
import {
  EVAL_JOB_SCHEMA,
  type EvalJobPublication,
  type EvaluatedSpan,
  type EvaluationResult,
  type EvaluatorSettings,
  type PlanName,
} from '@app/domain';
import { returnedRows } from '../query-result';

/** A job as a claim reads it, with its organization's plan, its evaluator and its span (null or false where they are gone). */
export interface EvalJobToClaim {
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
  target: EvaluatorSettings['target'];
  quiet_seconds: number;
  /** The job's span, or for a trace job (no span) its trace, still exists. */
  target_found: boolean;
  deferrals: number;
  trace_id: string;
  /** Null for a trace job (`eval_jobs.trace_run` numbers its runs instead). */
  span_id: string | null;
  input: EvaluatedSpan['input'];
  output: EvaluatedSpan['output'];
}

/**
 * Evaluation jobs, from their scheduling to their result: plain queries, over the manager of a
 * transaction its caller holds (the live projection's batch, a relay round, a claim, a finish).
 */
export class EvalJobs {
  constructor(private readonly db: EntityManager) {}

  /**
   * Creates the evaluation jobs a batch's spans call for: once per enabled span-target evaluator and span
   * it selects (span type, name, sample), when the span has an output. Call in the live
   * projection's transaction, after the batch is written: a span whose output arrives in a
   * later batch is scheduled then, and a redelivered batch schedules nothing twice.
   * Returns how many jobs it created.
   */
  async schedule(spans: { projectId: string; id: string }[]): Promise<number> {
    if (!spans.length) return 0;
    const projectIds = [...new Set(spans.map((s) => s.projectId))];
    const evaluated: { project_id: string }[] = await this.db.query(
      'SELECT DISTINCT project_id FROM evaluators WHERE enabled AND project_id = ANY($1::uuid[])',
      [projectIds],
    );
    if (!evaluated.length) return 0;
    const withEvaluators = new Set(evaluated.map((r) => r.project_id));
    const candidates = spans.filter((s) => withEvaluators.has(s.projectId)).map((s) => ({ project_id: s.projectId, id: s.id }));
    const created: unknown[] = await this.db.query(
      `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id)
       SELECT p.org_id, s.project_id, e.id, s.trace_id, s.id
         FROM (SELECT DISTINCT project_id, id FROM jsonb_to_recordset($1::jsonb) AS r (project_id uuid, id uuid)) b
         JOIN spans s ON s.project_id = b.project_id AND s.id = b.id
         JOIN evaluators e ON e.project_id = s.project_id AND e.enabled AND e.target = 'span'
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
   * Locks up to `limit` queued jobs that are due, as the messages that publish them. SKIP
   * LOCKED: several relays never take the same job at once.
   */
  async takeDue(limit: number): Promise<EvalJobPublication[]> {
    const rows: { jobId: string; orgId: string; projectId: string; evaluatorId: string; deferrals: number }[] = await this.db.query(
      `SELECT id AS "jobId", org_id AS "orgId", project_id AS "projectId", evaluator_id AS "evaluatorId", deferrals
         FROM eval_jobs WHERE status = 'queued' AND available_at <= now() ORDER BY available_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map(({ deferrals, ...r }) => ({ message: { schema: EVAL_JOB_SCHEMA, ...r }, deferrals }));
  }

  /** Marks jobs published once their messages are acknowledged (a job claimed meanwhile keeps its state). */
  async markPublished(jobIds: string[]): Promise<void> {
    await this.db.query(`UPDATE eval_jobs SET status = 'published' WHERE id = ANY($1::uuid[]) AND status = 'queued'`, [jobIds]);
  }

  /** The job, or undefined when it went with its evaluator (cascade) or never existed here. */
  async readToClaim(jobId: string): Promise<EvalJobToClaim | undefined> {
    const [job]: EvalJobToClaim[] = await this.db.query(
      `SELECT j.status, j.org_id, j.project_id, o.plan, e.id AS evaluator_id, e.name, e.url, e.timeout_ms, e.retries, e.filter, e.enabled,
              e.target, e.quiet_seconds,
              CASE WHEN j.span_id IS NULL
                   THEN EXISTS (SELECT 1 FROM traces t WHERE t.project_id = j.project_id AND t.id = j.trace_id)
                   ELSE s.id IS NOT NULL END AS target_found,
              j.deferrals, j.trace_id, j.span_id, s.input, s.output
         FROM eval_jobs j
         LEFT JOIN organizations o ON o.id = j.org_id
         LEFT JOIN evaluators e ON e.id = j.evaluator_id
         LEFT JOIN spans s ON s.project_id = j.project_id AND s.id = j.span_id
        WHERE j.id = $1`,
      [jobId],
    );
    return job;
  }

  async markSkipped(jobId: string, reason: string): Promise<void> {
    await this.db.query(`UPDATE eval_jobs SET status = 'skipped', reason = $2, finished_at = now() WHERE id = $1`, [jobId, reason]);
  }

  /** Queues the job again, due in `delayMs`, one deferral more. */
  async markDeferred(jobId: string, delayMs: number): Promise<void> {
    await this.db.query(
      `UPDATE eval_jobs SET status = 'queued', started_at = NULL, deferrals = deferrals + 1, available_at = now() + $2 * interval '1 millisecond' WHERE id = $1`,
      [jobId, delayMs],
    );
  }

  /**
   * Runs of the organization's jobs started since `since` (running or done), counted under a
   * transaction lock per organization: concurrent claims of one organization count one at a time.
   */
  async countStartedRuns(orgId: string, since: string): Promise<number> {
    await this.db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`spanlog:eval-quota:${orgId}`]);
    const [{ used }] = await this.db.query(
      `SELECT count(*)::int AS used FROM eval_jobs WHERE org_id = $1 AND status IN ('running', 'done') AND started_at >= $2`,
      [orgId, since],
    );
    return used;
  }

  async markRunning(jobId: string, startedAt: string): Promise<void> {
    await this.db.query(`UPDATE eval_jobs SET status = 'running', started_at = $2 WHERE id = $1`, [jobId, startedAt]);
  }

  /** Records a running job's result; resolves with when it started, or null when it was not running (a redelivery). */
  async markDone(jobId: string, result: EvaluationResult): Promise<Date | null> {
    const [row] = returnedRows<{ started_at: Date }>(
      await this.db.query(
        `UPDATE eval_jobs SET status = 'done', score = $2, pass = $3, reason = $4, finished_at = now()
          WHERE id = $1 AND status = 'running' RETURNING started_at`,
        [jobId, result.score, result.pass, result.reason],
      ),
    );
    return row ? row.started_at : null;
  }
}
