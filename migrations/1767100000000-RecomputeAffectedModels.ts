import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A cost recomputation looks only at spans whose model a change could price otherwise (issue 28):
 * - `match_patterns`: the patterns of the definitions the changes since it started created,
 *   changed or deleted (old and new); null: every model (a telemetry rebuild's restart, and
 *   recomputations stored before this migration).
 * - `models`: the project's models those patterns match, fixed by its first step; null before it.
 * - `after_model`, `after_start_time`, `after_span_id`: where it is, in the order of the spans'
 *   index on (project_id, model, start_time, id).
 * That index replaces the one on (project_id, model, start_time), which it serves too: with the
 * id in it, a step's keyset condition is an index condition, where spans sharing a start (the
 * bench's payload: a few starts for 100,000 spans) were read and sorted again by every step.
 */
export class RecomputeAffectedModels1767100000000 implements MigrationInterface {
  name = 'RecomputeAffectedModels1767100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE cost_recomputations ADD COLUMN match_patterns text[], ADD COLUMN models text[],
        ADD COLUMN after_model text, ADD COLUMN after_start_time timestamptz;
      CREATE INDEX spans_project_model_start_id_idx ON spans (project_id, model, start_time, id) WHERE model IS NOT NULL;
      DROP INDEX spans_project_model_start_idx;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX spans_project_model_start_idx ON spans (project_id, model, start_time) WHERE model IS NOT NULL;
      DROP INDEX spans_project_model_start_id_idx;
      ALTER TABLE cost_recomputations DROP COLUMN match_patterns, DROP COLUMN models, DROP COLUMN after_model, DROP COLUMN after_start_time;
    `);
  }
}
