import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * LLM-as-a-judge evaluators (issue 29) and a log of every evaluator run.
 *
 * - `llm_connections`: an OpenAI-compatible endpoint per project; its API key and extra headers
 *   are stored sealed (SecretBox, like evaluator headers), bound to the row.
 * - `evaluators.kind` (`webhook` by default) and `judge` (the judge's settings, for `llm-judge`);
 *   a judge has no URL of its own (it calls its connection's), so `url` may be null for it.
 * - `eval_jobs` becomes the run log: a `failed` status (a run that produced no valid result:
 *   a judge writes no score then; a webhook keeps SPEC 6.1 rule 2's error score), `attempts`,
 *   the detailed `error`, the score's `comment` and `category`, and the judge's model, tokens and
 *   cost. Sampled-out spans are recorded as `skipped` rows; retention deletes skipped rows with
 *   their trace, so the log is bounded by the plan's retention. The eval quota counts started
 *   runs whether they succeeded or failed.
 */
export class LlmJudges1767030000000 implements MigrationInterface {
  name = 'LlmJudges1767030000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE llm_connections (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        name text NOT NULL,
        base_url text NOT NULL,
        api_key_sealed text NOT NULL,
        headers_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, name)
      );

      ALTER TABLE evaluators
        ADD COLUMN kind text NOT NULL DEFAULT 'webhook' CHECK (kind IN ('webhook', 'llm-judge')),
        ADD COLUMN judge jsonb,
        ALTER COLUMN url DROP NOT NULL,
        ADD CONSTRAINT evaluators_kind_settings CHECK (
          (kind = 'webhook' AND url IS NOT NULL AND judge IS NULL) OR (kind = 'llm-judge' AND url IS NULL AND judge IS NOT NULL)
        );

      ALTER TABLE eval_jobs DROP CONSTRAINT eval_jobs_status_check;
      ALTER TABLE eval_jobs
        ADD CONSTRAINT eval_jobs_status_check CHECK (status IN ('queued', 'published', 'running', 'done', 'failed', 'skipped')),
        ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        ADD COLUMN error text,
        ADD COLUMN comment text,
        ADD COLUMN category text,
        ADD COLUMN judge_model text,
        ADD COLUMN judge_prompt_tokens integer,
        ADD COLUMN judge_completion_tokens integer,
        ADD COLUMN judge_cost double precision;
      -- What a done job's reason held (the endpoint's reason, the score's comment) moves to comment:
      -- reason now says why a run was skipped or failed.
      UPDATE eval_jobs SET comment = reason, reason = NULL WHERE status = 'done';

      DROP INDEX eval_jobs_org_started_idx;
      CREATE INDEX eval_jobs_org_started_idx ON eval_jobs (org_id, started_at) WHERE status IN ('running', 'done', 'failed');
      -- An evaluator's run log, newest first.
      CREATE INDEX eval_jobs_evaluator_runs_idx ON eval_jobs (evaluator_id, created_at DESC, id DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX eval_jobs_evaluator_runs_idx;
      DROP INDEX eval_jobs_org_started_idx;
      CREATE INDEX eval_jobs_org_started_idx ON eval_jobs (org_id, started_at) WHERE status IN ('running', 'done');
      UPDATE eval_jobs SET reason = comment WHERE status = 'done';
      UPDATE eval_jobs SET status = 'done' WHERE status = 'failed' AND started_at IS NOT NULL;
      UPDATE eval_jobs SET status = 'skipped' WHERE status = 'failed';
      ALTER TABLE eval_jobs DROP CONSTRAINT eval_jobs_status_check;
      ALTER TABLE eval_jobs
        ADD CONSTRAINT eval_jobs_status_check CHECK (status IN ('queued', 'published', 'running', 'done', 'skipped')),
        DROP COLUMN attempts, DROP COLUMN error, DROP COLUMN comment, DROP COLUMN category,
        DROP COLUMN judge_model, DROP COLUMN judge_prompt_tokens, DROP COLUMN judge_completion_tokens, DROP COLUMN judge_cost;
      DELETE FROM evaluators WHERE kind = 'llm-judge';
      ALTER TABLE evaluators DROP CONSTRAINT evaluators_kind_settings, DROP COLUMN kind, DROP COLUMN judge, ALTER COLUMN url SET NOT NULL;
      DROP TABLE llm_connections;
    `);
  }
}
