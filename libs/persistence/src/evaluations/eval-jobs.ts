import type { EntityManager } from 'typeorm';
import {
  EVAL_JOB_SCHEMA,
  EVAL_RUN_REASONS,
  type EvalJobPublication,
  type EvalRun,
  type EvalRunReason,
  type EvaluatedSpan,
  type EvaluatorKind,
  type EvaluatorSettings,
  type JsonValue,
  type JudgeCallRecord,
  type JudgeSettings,
  type PlanName,
  evalRunStatusOf,
} from '@app/domain';
import { type KeysetOrder, keyset } from '../keyset';
import { returnedRows } from '../query-result';

/** A job as a claim reads it, with its organization's plan, its evaluator and its span (null or false where they are gone). */
export interface EvalJobToClaim {
  status: string;
  org_id: string;
  project_id: string;
  plan: PlanName | null;
  evaluator_id: string | null;
  name: string | null;
  kind: EvaluatorKind | null;
  /** The webhook's URL, or a judge's connection's base URL: what the calls in flight are limited by. Null: the connection is gone. */
  url: string | null;
  judge: JudgeSettings | null;
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
  metadata: JsonValue | null;
}

/** How a started run ended: its result (done), or no valid result (failed), with what it cost. */
export interface EvalRunRecord {
  status: 'done' | 'failed';
  score: number | null;
  category: string | null;
  pass: boolean | null;
  comment: string | null;
  reason: EvalRunReason | null;
  error: string | null;
  attempts: number;
  judge: JudgeCallRecord | null;
}

/** The run log's order: newest first. */
const RUN_ORDER: KeysetOrder = {
  columns: [
    { sql: 'created_at', type: 'timestamptz' },
    { sql: 'id', type: 'uuid' },
  ],
  descending: true,
};

interface RunRow {
  id: string;
  trace_id: string;
  /** Null for a trace job. */
  span_id: string | null;
  status: string;
  reason: EvalRunReason | null;
  error: string | null;
  attempts: number;
  score: number | null;
  category: string | null;
  pass: boolean | null;
  comment: string | null;
  created_at: Date;
  created_at_text: string;
  started_at: Date | null;
  finished_at: Date | null;
  judge_model: string | null;
  judge_prompt_tokens: number | null;
  judge_completion_tokens: number | null;
  judge_cost: number | null;
}

const toRun = (r: RunRow): EvalRun => ({
  id: r.id,
  traceId: r.trace_id,
  spanId: r.span_id,
  status: evalRunStatusOf(r.status),
  reason: r.reason,
  error: r.error,
  attempts: r.attempts,
  score: r.category ?? r.score,
  pass: r.pass,
  comment: r.comment,
  createdAt: r.created_at.toISOString(),
  startedAt: r.started_at?.toISOString() ?? null,
  finishedAt: r.finished_at?.toISOString() ?? null,
  judge:
    r.judge_model === null && r.judge_prompt_tokens === null
      ? null
      : { model: r.judge_model, promptTokens: r.judge_prompt_tokens, completionTokens: r.judge_completion_tokens, cost: r.judge_cost },
});

/**
 * Evaluation jobs, from their scheduling to their result: plain queries, over the manager of a
 * transaction its caller holds (the live projection's batch, a relay round, a claim, a finish).
 */
export class EvalJobs {
  constructor(private readonly db: EntityManager) {}

  /**
   * Creates the evaluation jobs a batch's spans call for: once per enabled span-target evaluator
   * and span it selects (span type, name), when the span has an output; a span its sample leaves
   * out is recorded as a skipped run ("sampled out"), so the run log shows it. Call in the live
   * projection's transaction, after the batch is written: a span whose output arrives in a
   * later batch is scheduled then, and a redelivered batch schedules nothing twice.
   * Returns how many jobs it queued.
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
    const created: { status: string }[] = await this.db.query(
      `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id, status, reason, finished_at)
       SELECT p.org_id, s.project_id, e.id, s.trace_id, s.id,
              CASE WHEN sampled THEN 'queued' ELSE 'skipped' END, CASE WHEN sampled THEN NULL ELSE $2 END, CASE WHEN sampled THEN NULL ELSE now() END
         FROM (SELECT DISTINCT project_id, id FROM jsonb_to_recordset($1::jsonb) AS r (project_id uuid, id uuid)) b
         JOIN spans s ON s.project_id = b.project_id AND s.id = b.id
         JOIN evaluators e ON e.project_id = s.project_id AND e.enabled AND e.target = 'span'
         JOIN projects p ON p.id = s.project_id
         CROSS JOIN LATERAL (SELECT spanlog_sample(e.id, s.id) < (e.filter ->> 'sampleRate')::double precision AS sampled) k
        WHERE s.output IS NOT NULL AND s.trace_id IS NOT NULL
          AND e.filter -> 'spanTypes' ? s.type
          AND (jsonb_array_length(e.filter -> 'names') = 0 OR e.filter -> 'names' ? s.name)
        ORDER BY e.id, s.project_id, s.id
       ON CONFLICT (evaluator_id, project_id, span_id) DO NOTHING
       RETURNING status`,
      [JSON.stringify(candidates), EVAL_RUN_REASONS.sampledOut],
    );
    return created.filter((c) => c.status === 'queued').length;
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
      `SELECT j.status, j.org_id, j.project_id, o.plan, e.id AS evaluator_id, e.name, e.kind, coalesce(e.url, c.base_url) AS url, e.judge,
              e.timeout_ms, e.retries, e.filter, e.enabled, e.target, e.quiet_seconds,
              CASE WHEN j.span_id IS NULL
                   THEN EXISTS (SELECT 1 FROM traces t WHERE t.project_id = j.project_id AND t.id = j.trace_id)
                   ELSE s.id IS NOT NULL END AS target_found,
              j.deferrals, j.trace_id, j.span_id, s.input, s.output, s.metadata
         FROM eval_jobs j
         LEFT JOIN organizations o ON o.id = j.org_id
         LEFT JOIN evaluators e ON e.id = j.evaluator_id
         LEFT JOIN llm_connections c ON c.project_id = e.project_id AND c.id = (e.judge ->> 'connectionId')::uuid
         LEFT JOIN spans s ON s.project_id = j.project_id AND s.id = j.span_id
        WHERE j.id = $1`,
      [jobId],
    );
    return job;
  }

  async markSkipped(jobId: string, reason: EvalRunReason, error: string | null = null): Promise<void> {
    await this.db.query(`UPDATE eval_jobs SET status = 'skipped', reason = $2, error = $3, finished_at = now() WHERE id = $1`, [
      jobId,
      reason,
      error,
    ]);
  }

  /** A job that cannot run at all (its judge's connection is gone): failed, not started, so not counted. */
  async markFailedUnstarted(jobId: string, reason: EvalRunReason, error: string): Promise<void> {
    await this.db.query(`UPDATE eval_jobs SET status = 'failed', reason = $2, error = $3, finished_at = now() WHERE id = $1`, [
      jobId,
      reason,
      error,
    ]);
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
      `SELECT count(*)::int AS used FROM eval_jobs WHERE org_id = $1 AND status IN ('running', 'done', 'failed') AND started_at >= $2`,
      [orgId, since],
    );
    return used;
  }

  async markRunning(jobId: string, startedAt: string): Promise<void> {
    await this.db.query(`UPDATE eval_jobs SET status = 'running', started_at = $2 WHERE id = $1`, [jobId, startedAt]);
  }

  /** Records how a running job ended; resolves with when it started, or null when it was not running (a redelivery). */
  async markFinished(jobId: string, run: EvalRunRecord): Promise<Date | null> {
    const [row] = returnedRows<{ started_at: Date }>(
      await this.db.query(
        `UPDATE eval_jobs SET status = $2, score = $3, category = $4, pass = $5, comment = $6, reason = $7, error = $8, attempts = $9,
                judge_model = $10, judge_prompt_tokens = $11, judge_completion_tokens = $12, judge_cost = $13, finished_at = now()
          WHERE id = $1 AND status = 'running' RETURNING started_at`,
        [
          jobId,
          run.status,
          run.score,
          run.category,
          run.pass,
          run.comment,
          run.reason,
          run.error,
          run.attempts,
          run.judge?.model ?? null,
          run.judge?.promptTokens ?? null,
          run.judge?.completionTokens ?? null,
          run.judge?.cost ?? null,
        ],
      ),
    );
    return row ? row.started_at : null;
  }

  /**
   * A page of an evaluator's runs, newest first, of the job statuses given (all when empty),
   * after `after` (a cursor's position: created_at as Postgres text, id); `limit + 1` rows tell
   * whether more follow.
   */
  async runs(
    evaluatorId: string,
    jobStatuses: readonly string[],
    after: readonly [string, string] | null,
    limit: number,
  ): Promise<{ run: EvalRun; position: [string, string] }[]> {
    const params: unknown[] = [evaluatorId, jobStatuses];
    const page = keyset(RUN_ORDER, after, limit, params);
    const rows: RunRow[] = await this.db.query(
      `SELECT id, trace_id, span_id, status, reason, error, attempts, score, category, pass, comment, created_at, created_at::text AS created_at_text,
              started_at, finished_at, judge_model, judge_prompt_tokens, judge_completion_tokens, judge_cost
         FROM eval_jobs
        WHERE evaluator_id = $1 AND (cardinality($2::text[]) = 0 OR status = ANY($2::text[])) AND ${page.after}
        ORDER BY ${page.orderBy} ${page.limit}`,
      params,
    );
    return rows.map((r) => ({ run: toRun(r), position: [r.created_at_text, r.id] }));
  }
}
