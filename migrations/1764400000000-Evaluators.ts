import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook evaluators (SPEC 2.6, 6.1): their configuration per project, and one job per
 * evaluator and span. A job is created once, by the live projection, when a matching span
 * has an output; it is relayed to EVALS, run by the evaluation worker, and ends `done`
 * (a result, stored as a score) or `skipped` (not run: the Free eval quota, a deleted
 * evaluator or span), with the reason.
 */
export class Evaluators1764400000000 implements MigrationInterface {
  name = 'Evaluators1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE evaluators (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        name text NOT NULL,
        url text NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        timeout_ms integer NOT NULL CHECK (timeout_ms BETWEEN 1000 AND 30000),
        retries integer NOT NULL CHECK (retries BETWEEN 0 AND 5),
        filter jsonb NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, name)
      );
      CREATE INDEX evaluators_enabled_idx ON evaluators (project_id) WHERE enabled;

      CREATE TABLE eval_jobs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        org_id uuid NOT NULL,
        project_id uuid NOT NULL,
        evaluator_id uuid NOT NULL REFERENCES evaluators (id) ON DELETE CASCADE,
        trace_id uuid NOT NULL,
        span_id uuid NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'published', 'running', 'done', 'skipped')),
        score double precision,
        pass boolean,
        reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz,
        UNIQUE (evaluator_id, project_id, span_id)
      );
      CREATE INDEX eval_jobs_queued_idx ON eval_jobs (created_at) WHERE status = 'queued';
      -- Retention clears the results of a deleted trace's jobs.
      CREATE INDEX eval_jobs_trace_idx ON eval_jobs (project_id, trace_id);
      -- The runs an organization used this month: the eval quota counts them exactly.
      CREATE INDEX eval_jobs_org_started_idx ON eval_jobs (org_id, started_at) WHERE status IN ('running', 'done');

      -- Where in [0, 1) a span falls for an evaluator's sample rate: fixed per pair, so a
      -- span is sampled the same way however often it is seen, and evaluators sample independently.
      CREATE FUNCTION spanlog_sample(evaluator uuid, span uuid) RETURNS double precision
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT ('x' || substr(md5(evaluator::text || ':' || span::text), 1, 8))::bit(32)::bigint / 4294967296.0
        $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION spanlog_sample(uuid, uuid); DROP TABLE eval_jobs, evaluators');
  }
}
