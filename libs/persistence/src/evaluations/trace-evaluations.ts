import type { EntityManager } from 'typeorm';
import {
  type DueDecision,
  EVALUATOR_LIMITS,
  type EvaluatedTrace,
  type EvaluatorFilter,
  TELEMETRY_RANGES,
  type TraceSpanSummary,
  EVAL_RUN_REASONS,
  decideDueTraceEvaluation,
  traceInFilter,
  traceEvaluationDelaySeconds,
  traceMatchesFilter,
} from '@app/domain';

/** A trace whose data a batch wrote. */
export interface WrittenTrace {
  projectId: string;
  id: string;
}

/** A due row as the poller reads it, locked. */
interface DueRow {
  evaluator_id: string;
  project_id: string;
  trace_id: string;
  runs: number;
  org_id: string | null;
  active: boolean | null;
  filter: EvaluatorFilter | null;
  trace_found: boolean;
  name: string | null;
  tags: string[] | null;
  environment: string | null;
  root_ended: boolean;
  sample: number;
}

/** What one poll did with the due rows it took. */
export interface TraceEvaluationPoll {
  taken: number;
  jobs: number;
  decisions: DueDecision[];
}

/**
 * Whether every span of a trace without a parent has ended, with at least one such span: the
 * trace's root (a trace of several top-level spans is complete when all of them are).
 */
const ROOT_ENDED = (project: string, trace: string) =>
  `coalesce((SELECT bool_and(s.end_time IS NOT NULL) FROM spans s
              WHERE s.project_id = ${project} AND s.trace_id = ${trace} AND s.parent_id IS NULL), false)`;

/** Spans' values a trace's totals leave out: a cost beyond the range is a row stored before the check. */
const SPAN_TOKENS = 'coalesce(s.total_tokens, s.prompt_tokens + s.completion_tokens, s.prompt_tokens, s.completion_tokens)';

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

/**
 * Trace-level evaluation, from the projection's write to the job (migration TraceEvaluations):
 * `arm` in the live projection's batch transaction, `enqueueDue` by the processor's poller, and
 * the trace as the evaluation reads it. Plain queries over the caller's transaction.
 */
export class TraceEvaluations {
  constructor(private readonly db: EntityManager) {}

  /**
   * Arms the evaluation of each written trace by each enabled trace-target evaluator of its
   * project: due `quietSeconds` from now once its root span has ended, not armed before that,
   * and never again once its runs are used up (`traceEvaluationDelaySeconds`). Call after the
   * batch is written: every later write of the trace pushes the due time out again.
   */
  async arm(traces: WrittenTrace[]): Promise<number> {
    if (!traces.length) return 0;
    const projectIds = [...new Set(traces.map((t) => t.projectId))];
    const evaluated: { project_id: string }[] = await this.db.query(
      `SELECT DISTINCT project_id FROM evaluators WHERE enabled AND target = 'trace' AND project_id = ANY($1::uuid[])`,
      [projectIds],
    );
    if (!evaluated.length) return 0;
    const withEvaluators = new Set(evaluated.map((r) => r.project_id));
    const touched = traces.filter((t) => withEvaluators.has(t.projectId)).map((t) => ({ project_id: t.projectId, id: t.id }));
    const states: {
      evaluator_id: string;
      project_id: string;
      trace_id: string;
      quiet_seconds: number;
      runs: number;
      root_ended: boolean;
    }[] = await this.db.query(
      `SELECT e.id AS evaluator_id, t.project_id, t.id AS trace_id, e.quiet_seconds, coalesce(p.runs, 0) AS runs,
                ${ROOT_ENDED('t.project_id', 't.id')} AS root_ended
           FROM (SELECT DISTINCT project_id, id FROM jsonb_to_recordset($1::jsonb) AS r (project_id uuid, id uuid)) b
           JOIN traces t ON t.project_id = b.project_id AND t.id = b.id
           JOIN evaluators e ON e.project_id = t.project_id AND e.enabled AND e.target = 'trace'
           LEFT JOIN trace_evaluations_pending p ON p.evaluator_id = e.id AND p.project_id = t.project_id AND p.trace_id = t.id`,
      [JSON.stringify(touched)],
    );
    if (!states.length) return 0;
    const rows = states.map((s) => ({
      evaluator_id: s.evaluator_id,
      project_id: s.project_id,
      trace_id: s.trace_id,
      delay: traceEvaluationDelaySeconds(s.root_ended, s.runs, s.quiet_seconds),
    }));
    // The runs are read again under the row's lock: a poll that made a job meanwhile counts.
    await this.db.query(
      `INSERT INTO trace_evaluations_pending AS p (evaluator_id, project_id, trace_id, due_at)
       SELECT evaluator_id, project_id, trace_id, now() + delay * interval '1 second'
         FROM jsonb_to_recordset($1::jsonb) AS r (evaluator_id uuid, project_id uuid, trace_id uuid, delay integer)
        ORDER BY evaluator_id, project_id, trace_id
       ON CONFLICT (evaluator_id, project_id, trace_id) DO UPDATE
          SET due_at = CASE WHEN p.runs >= $2 THEN NULL ELSE excluded.due_at END, armed_at = now()`,
      [JSON.stringify(rows), EVALUATOR_LIMITS.traceRuns],
    );
    return rows.length;
  }

  /**
   * Takes up to `limit` due rows (SKIP LOCKED: several pollers never take one row twice) and
   * decides each (`decideDueTraceEvaluation`): a job for its next run, the row disarmed, or
   * removed with its trace. A job is unique per evaluator, trace and run, so it is made once.
   */
  async enqueueDue(limit: number): Promise<TraceEvaluationPoll> {
    const due: DueRow[] = await this.db.query(
      `SELECT p.evaluator_id, p.project_id, p.trace_id, p.runs, pr.org_id,
              (e.enabled AND e.target = 'trace') AS active, e.filter,
              t.id IS NOT NULL AS trace_found, t.name, t.tags, t.environment,
              ${ROOT_ENDED('p.project_id', 'p.trace_id')} AS root_ended,
              spanlog_sample(p.evaluator_id, p.trace_id) AS sample
         FROM trace_evaluations_pending p
         JOIN evaluators e ON e.id = p.evaluator_id
         LEFT JOIN projects pr ON pr.id = p.project_id
         LEFT JOIN traces t ON t.project_id = p.project_id AND t.id = p.trace_id
        WHERE p.due_at <= now()
        ORDER BY p.due_at, p.evaluator_id, p.trace_id
        LIMIT $1
          FOR UPDATE OF p SKIP LOCKED`,
      [limit],
    );
    if (!due.length) return { taken: 0, jobs: 0, decisions: [] };
    const decided = due.map((row) => ({
      row,
      decision: decideDueTraceEvaluation({
        runs: row.runs,
        evaluatorActive: row.active === true,
        traceFound: row.trace_found && row.org_id !== null,
        rootEnded: row.root_ended,
        inFilter: row.filter !== null && traceInFilter(row.filter, row),
        sampled: row.filter !== null && traceMatchesFilter(row.filter, row, row.sample),
      }),
    }));
    const key = ({ row }: (typeof decided)[number]) => ({
      evaluator_id: row.evaluator_id,
      project_id: row.project_id,
      trace_id: row.trace_id,
    });
    const runs = decided.filter((d) => d.decision.kind === 'run');
    let jobs = 0;
    if (runs.length) {
      const created: unknown[] = await this.db.query(
        `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id, trace_run)
         SELECT org_id, project_id, evaluator_id, trace_id, NULL, run
           FROM jsonb_to_recordset($1::jsonb) AS r (org_id uuid, project_id uuid, evaluator_id uuid, trace_id uuid, run smallint)
          ORDER BY evaluator_id, project_id, trace_id, run
         ON CONFLICT (evaluator_id, project_id, trace_id, trace_run) WHERE span_id IS NULL DO UPDATE
            -- Logged sampled out before, selected now (a higher sample rate): the run is made after all.
            SET status = 'queued', reason = NULL, error = NULL, finished_at = NULL, available_at = now()
          WHERE eval_jobs.status = 'skipped' AND eval_jobs.reason = $2
         RETURNING id`,
        [
          JSON.stringify(runs.map((d) => ({ ...key(d), org_id: d.row.org_id, run: (d.decision as { run: number }).run }))),
          EVAL_RUN_REASONS.sampledOut,
        ],
      );
      jobs = created.length;
      await this.db.query(
        `UPDATE trace_evaluations_pending p SET due_at = NULL, runs = r.run
           FROM jsonb_to_recordset($1::jsonb) AS r (evaluator_id uuid, project_id uuid, trace_id uuid, run smallint)
          WHERE p.evaluator_id = r.evaluator_id AND p.project_id = r.project_id AND p.trace_id = r.trace_id`,
        [JSON.stringify(runs.map((d) => ({ ...key(d), run: (d.decision as { run: number }).run })))],
      );
    }
    const sampledOut = decided.filter((d) => d.decision.kind === 'sampled-out');
    if (sampledOut.length) {
      // Logged once per trace and run: the sample is fixed per evaluator and trace.
      await this.db.query(
        `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id, trace_run, status, reason, finished_at)
         SELECT org_id, project_id, evaluator_id, trace_id, NULL, run, 'skipped', $2, now()
           FROM jsonb_to_recordset($1::jsonb) AS r (org_id uuid, project_id uuid, evaluator_id uuid, trace_id uuid, run smallint)
          ORDER BY evaluator_id, project_id, trace_id, run
         ON CONFLICT (evaluator_id, project_id, trace_id, trace_run) WHERE span_id IS NULL DO NOTHING`,
        [
          JSON.stringify(sampledOut.map((d) => ({ ...key(d), org_id: d.row.org_id, run: (d.decision as { run: number }).run }))),
          EVAL_RUN_REASONS.sampledOut,
        ],
      );
    }
    const resting = decided.filter((d) => d.decision.kind === 'rest' || d.decision.kind === 'sampled-out').map(key);
    if (resting.length) {
      await this.db.query(
        `UPDATE trace_evaluations_pending p SET due_at = NULL
           FROM jsonb_to_recordset($1::jsonb) AS r (evaluator_id uuid, project_id uuid, trace_id uuid)
          WHERE p.evaluator_id = r.evaluator_id AND p.project_id = r.project_id AND p.trace_id = r.trace_id`,
        [JSON.stringify(resting)],
      );
    }
    const dropped = decided.filter((d) => d.decision.kind === 'drop').map(key);
    if (dropped.length) {
      await this.db.query(
        `DELETE FROM trace_evaluations_pending p
          USING jsonb_to_recordset($1::jsonb) AS r (evaluator_id uuid, project_id uuid, trace_id uuid)
          WHERE p.evaluator_id = r.evaluator_id AND p.project_id = r.project_id AND p.trace_id = r.trace_id`,
        [JSON.stringify(dropped)],
      );
    }
    return { taken: due.length, jobs, decisions: decided.map((d) => d.decision) };
  }

  /** The trace an evaluation reads, or undefined when it is gone. */
  async readTrace(projectId: string, traceId: string): Promise<EvaluatedTrace | undefined> {
    const [t] = await this.db.query(
      `SELECT t.id, t.name, coalesce(t.input, r.input) AS input, coalesce(t.output, r.output) AS output, t.metadata, t.tags,
              t.user_id, t.session_id, t.environment, t.release, t.version, t."timestamp",
              a.start_time, a.end_time, a.span_count, a.total_tokens, a.total_cost
         FROM traces t
         LEFT JOIN LATERAL (
           SELECT s.input, s.output FROM spans s WHERE s.project_id = t.project_id AND s.trace_id = t.id AND s.parent_id IS NULL
            ORDER BY s.start_time NULLS LAST, s.id LIMIT 1) r ON true
         CROSS JOIN LATERAL (
           SELECT min(s.start_time) AS start_time, max(coalesce(s.end_time, s.start_time)) AS end_time, count(*)::int AS span_count,
                  coalesce(sum(${SPAN_TOKENS}), 0)::float8 AS total_tokens,
                  coalesce(round((sum(s.cost) FILTER (WHERE s.cost <= ${TELEMETRY_RANGES.spanCost.max}))::numeric, 12), 0)::float8 AS total_cost
             FROM spans s WHERE s.project_id = t.project_id AND s.trace_id = t.id) a
        WHERE t.project_id = $1 AND t.id = $2`,
      [projectId, traceId],
    );
    if (!t) return undefined;
    const spans: {
      id: string;
      parent_id: string | null;
      name: string | null;
      type: string | null;
      model: string | null;
      start_time: Date | null;
      end_time: Date | null;
      level: string | null;
      status_message: string | null;
      prompt_tokens: number | null;
      completion_tokens: number | null;
      cost: number | null;
    }[] = await this.db.query(
      `SELECT s.id, s.parent_id, s.name, s.type, s.model, s.start_time, s.end_time, s.level, s.status_message,
              s.prompt_tokens::float8 AS prompt_tokens, s.completion_tokens::float8 AS completion_tokens, s.cost
         FROM spans s WHERE s.project_id = $1 AND s.trace_id = $2
        ORDER BY s.start_time NULLS LAST, s.id LIMIT $3`,
      [projectId, traceId, EVALUATOR_LIMITS.traceSpansInPayload],
    );
    const startTime = iso(t.start_time);
    const endTime = iso(t.end_time);
    return {
      id: t.id,
      name: t.name,
      input: t.input,
      output: t.output,
      metadata: t.metadata,
      tags: t.tags ?? [],
      userId: t.user_id,
      sessionId: t.session_id,
      environment: t.environment,
      release: t.release,
      version: t.version,
      timestamp: (t.timestamp as Date).toISOString(),
      startTime,
      endTime,
      latencyMs: t.start_time && t.end_time ? (t.end_time as Date).getTime() - (t.start_time as Date).getTime() : null,
      spanCount: t.span_count,
      totalTokens: t.total_tokens,
      totalCost: t.total_cost,
      spans: spans.map((s): TraceSpanSummary => ({
        id: s.id,
        parentId: s.parent_id,
        name: s.name,
        type: s.type,
        model: s.model,
        startTime: iso(s.start_time),
        endTime: iso(s.end_time),
        level: s.level,
        statusMessage: s.status_message,
        promptTokens: s.prompt_tokens,
        completionTokens: s.completion_tokens,
        cost: s.cost,
      })),
      spansLeftOut: Math.max(0, t.span_count - spans.length),
    };
  }
}
