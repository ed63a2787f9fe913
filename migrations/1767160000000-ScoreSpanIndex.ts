import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The model-stats recount finds the scores of its buckets' calls by span id. Without an index on
 * it the planner hashed every score with every bucket of the batch (2.4 million rows for 200
 * hours) and read the whole span table against them: 8.7 s a batch on the ceiling's data
 * (857,000 spans), so a rebuild's recount grew with the rows times the batches
 * (docs/BENCHMARKS.md, "One machine's ceiling"). With it, a batch reads its calls through their
 * time range and their scores through this index and the trace's: 0.5 s.
 */
export class ScoreSpanIndex1767160000000 implements MigrationInterface {
  name = 'ScoreSpanIndex1767160000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX scores_project_span_idx ON scores (project_id, span_id) WHERE span_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX scores_project_span_idx');
  }
}
