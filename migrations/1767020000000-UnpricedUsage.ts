import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage the price table could not price (issue 28), kept where the projection writes it so a
 * rebuild or a recomputation keeps it right:
 * - `spans.unpriced_usage`: the usage types with tokens that the span's computed cost left out
 *   (or all of them when no definition prices its model at its start), set by `priceSpan`;
 *   empty when the cost is the client's or priced whole, null when nothing was priced.
 * - `span_stats_5m.unpriced_calls`: how many of a bucket's spans have such usage, per the
 *   stats' dimensions, for the `unpriced_spans` monitor metric.
 * - `unpriced_stats_5m`: per 5-minute bucket, model and usage type, the spans and their first and
 *   last start, recounted with the other 5-minute stats. Reading a project's unpriced usage
 *   sums its buckets, never the spans, so it costs the same on 10 million spans as on ten.
 * Rows written before hold null and the buckets counted before hold 0 until the telemetry
 * projection's rebuild and the model-stats projection's version 4 recount them.
 */
export class UnpricedUsage1767020000000 implements MigrationInterface {
  name = 'UnpricedUsage1767020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE spans ADD COLUMN unpriced_usage text[];
      ALTER TABLE span_stats_5m ADD COLUMN unpriced_calls integer NOT NULL DEFAULT 0;
      CREATE TABLE unpriced_stats_5m (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        model text NOT NULL,
        usage_type text NOT NULL,
        spans integer NOT NULL,
        first_seen timestamptz NOT NULL,
        last_seen timestamptz NOT NULL,
        PRIMARY KEY (project_id, bucket, model, usage_type)
      );
      ALTER TABLE monitors DROP CONSTRAINT monitors_metric_check;
      ALTER TABLE monitors ADD CONSTRAINT monitors_metric_check
        CHECK (metric IN ('error_rate', 'latency_p95', 'cost', 'calls', 'score_mean', 'score_pass_rate', 'unpriced_spans'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM monitors WHERE metric = 'unpriced_spans';
      ALTER TABLE monitors DROP CONSTRAINT monitors_metric_check;
      ALTER TABLE monitors ADD CONSTRAINT monitors_metric_check
        CHECK (metric IN ('error_rate', 'latency_p95', 'cost', 'calls', 'score_mean', 'score_pass_rate'));
      DROP TABLE unpriced_stats_5m;
      ALTER TABLE span_stats_5m DROP COLUMN unpriced_calls;
      ALTER TABLE spans DROP COLUMN unpriced_usage;
    `);
  }
}
