import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The span's `operation` as a dimension of the overview's 5-minute span stats (issue 26): the
 * overview breaks spans down by operation and counts LLM calls by it (`isLlmCall`), since a
 * tool or agent span sent with `gen_ai.*` keys has type LLM. '' when the span has none, like
 * the other dimensions. The rows counted before hold '' until the model-stats projection's
 * version 3 recounts them, which the processor's upgrader does at start.
 */
export class SpanStatsOperation1766800000000 implements MigrationInterface {
  name = 'SpanStatsOperation1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE span_stats_5m ADD COLUMN operation text NOT NULL DEFAULT '';
      ALTER TABLE span_stats_5m DROP CONSTRAINT span_stats_5m_pkey;
      ALTER TABLE span_stats_5m ADD PRIMARY KEY (project_id, bucket, span_type, model, trace_name, operation);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    // Rows that differ by operation alone would collide: the buckets are emptied and marked, and the older code recounts them.
    await q.query(`
      INSERT INTO stats_5m_dirty (project_id, bucket) SELECT DISTINCT project_id, bucket FROM span_stats_5m ON CONFLICT DO NOTHING;
      DELETE FROM span_stats_5m;
      ALTER TABLE span_stats_5m DROP CONSTRAINT span_stats_5m_pkey;
      ALTER TABLE span_stats_5m DROP COLUMN operation;
      ALTER TABLE span_stats_5m ADD PRIMARY KEY (project_id, bucket, span_type, model, trace_name);
    `);
  }
}
