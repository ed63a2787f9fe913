import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trace-level evaluation (issue 29): an evaluator's `target` is a span (as before) or a whole
 * trace, evaluated once the trace is complete: its root span ended and nothing of it arrived for
 * `quiet_seconds`. The live projection arms `trace_evaluations_pending` in the batch's
 * transaction whenever trace or span data of the trace is written (it sees every write), with
 * `due_at` pushed out by the quiet window; the processor's poller takes due rows with SKIP LOCKED
 * and turns each into an evaluation job. `runs` counts the jobs made for the pair, so a late
 * span re-arms it once and no more. A trace job has no span: it is keyed by its run instead.
 */
export class TraceEvaluations1767040000000 implements MigrationInterface {
  name = 'TraceEvaluations1767040000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE evaluators
        ADD COLUMN target text NOT NULL DEFAULT 'span' CHECK (target IN ('span', 'trace')),
        ADD COLUMN quiet_seconds integer NOT NULL DEFAULT 30 CHECK (quiet_seconds BETWEEN 5 AND 3600);
      CREATE INDEX evaluators_trace_target_idx ON evaluators (project_id) WHERE enabled AND target = 'trace';

      ALTER TABLE eval_jobs
        ALTER COLUMN span_id DROP NOT NULL,
        ADD COLUMN trace_run smallint CHECK (trace_run BETWEEN 1 AND 2),
        ADD CONSTRAINT eval_jobs_one_target CHECK ((span_id IS NULL) = (trace_run IS NOT NULL));
      CREATE UNIQUE INDEX eval_jobs_trace_run_key ON eval_jobs (evaluator_id, project_id, trace_id, trace_run) WHERE span_id IS NULL;

      CREATE TABLE trace_evaluations_pending (
        evaluator_id uuid NOT NULL REFERENCES evaluators (id) ON DELETE CASCADE,
        project_id uuid NOT NULL,
        trace_id uuid NOT NULL,
        -- NULL: not armed (root span still open, runs used up, or evaluated and quiet since).
        due_at timestamptz,
        runs smallint NOT NULL DEFAULT 0 CHECK (runs BETWEEN 0 AND 2),
        armed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (evaluator_id, project_id, trace_id)
      );
      CREATE INDEX trace_evaluations_due_idx ON trace_evaluations_pending (due_at) WHERE due_at IS NOT NULL;
      -- Retention removes a deleted trace's rows.
      CREATE INDEX trace_evaluations_trace_idx ON trace_evaluations_pending (project_id, trace_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE trace_evaluations_pending;
      DELETE FROM eval_jobs WHERE span_id IS NULL;
      DROP INDEX eval_jobs_trace_run_key;
      ALTER TABLE eval_jobs DROP CONSTRAINT eval_jobs_one_target, DROP COLUMN trace_run, ALTER COLUMN span_id SET NOT NULL;
      DROP INDEX evaluators_trace_target_idx;
      ALTER TABLE evaluators DROP COLUMN target, DROP COLUMN quiet_seconds;
    `);
  }
}
