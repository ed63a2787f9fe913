import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The overview stats (issue 15's overview, issue 16's monitors): per project and 5-minute
 * bucket of event time, what the spans did by span type, model ('' when none) and trace name
 * ('' when none), how many traces started, and how the scores came out by trace name, source
 * and name. Like model_stats, derived from the rows, never counted from events: the telemetry
 * projection marks the buckets a batch touches in `stats_5m_dirty` (in the same statement that
 * marks model_stats_dirty, and in a trace deletion's), and the processor recounts them.
 *
 * Span time is `start_time`, trace time is `traces.timestamp`, score time is
 * `coalesce(scores.timestamp, scores.created_at)`. The histogram is libs/domain
 * latency-histogram's, as in model_stats.
 */
export class OverviewStats1765000000000 implements MigrationInterface {
  name = 'OverviewStats1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE span_stats_5m (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        span_type text NOT NULL,
        model text NOT NULL,
        trace_name text NOT NULL,
        calls integer NOT NULL,
        errors integer NOT NULL,
        latency_hist jsonb NOT NULL,
        cost_usd double precision NOT NULL,
        prompt_tokens bigint NOT NULL,
        completion_tokens bigint NOT NULL,
        total_tokens bigint NOT NULL,
        PRIMARY KEY (project_id, bucket, span_type, model, trace_name)
      );

      CREATE TABLE trace_stats_5m (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        traces integer NOT NULL,
        PRIMARY KEY (project_id, bucket)
      );

      CREATE TABLE score_stats_5m (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        trace_name text NOT NULL,
        source text NOT NULL,
        name text NOT NULL,
        scores integer NOT NULL,
        numeric_scores integer NOT NULL,
        value_sum double precision NOT NULL,
        judged integer NOT NULL,
        passed integer NOT NULL,
        PRIMARY KEY (project_id, bucket, trace_name, source, name)
      );

      CREATE TABLE stats_5m_dirty (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        PRIMARY KEY (project_id, bucket)
      );

      CREATE INDEX spans_project_start_idx ON spans (project_id, start_time);
      CREATE INDEX scores_project_time_idx ON scores (project_id, (coalesce("timestamp", created_at)));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX scores_project_time_idx;
      DROP INDEX spans_project_start_idx;
      DROP TABLE stats_5m_dirty, score_stats_5m, trace_stats_5m, span_stats_5m;
    `);
  }
}
