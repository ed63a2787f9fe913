import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The model-stats read model (issue 13): per project, model and hour, what the spans of that
 * model did and how their scores came out. It is derived from the span and score rows, never
 * counted from events, so applying a message twice, a span updated later, a retention deletion
 * or a rebuild all leave it equal to a recount: the telemetry projection marks the buckets a
 * batch touches in `model_stats_dirty` (in its transaction), and the processor recomputes
 * dirty buckets from the rows.
 *
 * `latency_hist` is a sparse histogram in the fixed buckets of libs/domain latency-histogram
 * (bucket index → spans), mergeable across hours. Scores count for the model of their span,
 * or, for a score of a whole trace, for each model its spans called in that hour.
 */
export class ModelStats1764510000000 implements MigrationInterface {
  name = 'ModelStats1764510000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE model_stats (
        project_id uuid NOT NULL,
        model text NOT NULL,
        hour timestamptz NOT NULL,
        calls integer NOT NULL,
        errors integer NOT NULL,
        timed_calls integer NOT NULL,
        latency_sum_ms double precision NOT NULL,
        latency_hist jsonb NOT NULL,
        costed_calls integer NOT NULL,
        cost_usd double precision NOT NULL,
        prompt_tokens bigint NOT NULL,
        completion_tokens bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, model, hour)
      );

      CREATE TABLE model_score_stats (
        project_id uuid NOT NULL,
        model text NOT NULL,
        hour timestamptz NOT NULL,
        source text NOT NULL,
        name text NOT NULL,
        scores integer NOT NULL,
        numeric_scores integer NOT NULL,
        value_sum double precision NOT NULL,
        judged integer NOT NULL,
        passed integer NOT NULL,
        PRIMARY KEY (project_id, model, hour, source, name)
      );

      CREATE TABLE model_stats_dirty (
        project_id uuid NOT NULL,
        model text NOT NULL,
        hour timestamptz NOT NULL,
        PRIMARY KEY (project_id, model, hour)
      );

      CREATE INDEX spans_project_model_start_idx ON spans (project_id, model, start_time) WHERE model IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX spans_project_model_start_idx;
      DROP TABLE model_stats_dirty, model_score_stats, model_stats;
    `);
  }
}
