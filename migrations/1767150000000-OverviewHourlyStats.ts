import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hourly roll-ups of the overview's 5-minute stats (issue 33): the same columns, `bucket` the
 * start of a UTC hour, each hour the sum of its twelve 5-minute buckets; the span stats without
 * the trace name, which the overview never groups by (a monitor's window by trace name reads the
 * 5-minute stats), so an hour holds a row per span type, model and operation. Reading 30 days of
 * 5-minute span stats grew with the data (about one row per span at the bench's density,
 * docs/BENCHMARKS.md "One machine's ceiling"); the overview's hour-wide points, monitors'
 * windows and the unpriced usage read the whole hours from these instead.
 *
 * They are recomputed from the 5-minute stats, never from the rows, whenever a bucket of the
 * hour is recounted (`refreshDirtyOverviewStats`). To fill them, the first bucket of every hour
 * with 5-minute stats is marked for recount here: the processor's refresher recounts it, which
 * rolls up its hour.
 */
export class OverviewHourlyStats1767150000000 implements MigrationInterface {
  name = 'OverviewHourlyStats1767150000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE span_stats_1h (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        span_type text NOT NULL,
        model text NOT NULL,
        operation text NOT NULL,
        calls integer NOT NULL,
        errors integer NOT NULL,
        latency_hist jsonb NOT NULL,
        cost_usd double precision NOT NULL,
        prompt_tokens bigint NOT NULL,
        completion_tokens bigint NOT NULL,
        total_tokens bigint NOT NULL,
        unpriced_calls integer NOT NULL,
        PRIMARY KEY (project_id, bucket, span_type, model, operation)
      );

      CREATE TABLE trace_stats_1h (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        traces integer NOT NULL,
        PRIMARY KEY (project_id, bucket)
      );

      CREATE TABLE score_stats_1h (
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

      CREATE TABLE unpriced_stats_1h (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        model text NOT NULL,
        usage_type text NOT NULL,
        spans integer NOT NULL,
        first_seen timestamptz NOT NULL,
        last_seen timestamptz NOT NULL,
        PRIMARY KEY (project_id, bucket, model, usage_type)
      );

      INSERT INTO stats_5m_dirty (project_id, bucket)
      SELECT project_id, date_bin('1 hour', bucket, timestamptz '1970-01-01T00:00:00Z') FROM span_stats_5m
      UNION SELECT project_id, date_bin('1 hour', bucket, timestamptz '1970-01-01T00:00:00Z') FROM trace_stats_5m
      UNION SELECT project_id, date_bin('1 hour', bucket, timestamptz '1970-01-01T00:00:00Z') FROM score_stats_5m
      UNION SELECT project_id, date_bin('1 hour', bucket, timestamptz '1970-01-01T00:00:00Z') FROM unpriced_stats_5m
      ON CONFLICT DO NOTHING;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE unpriced_stats_1h, score_stats_1h, trace_stats_1h, span_stats_1h');
  }
}
