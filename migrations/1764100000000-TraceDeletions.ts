import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention (SPEC 8.5): a tombstone per deleted trace. The projection writes no trace, span
 * or score of a tombstoned trace, so neither a late span nor a replay brings it back.
 * Tombstones are kept: 32 bytes a trace is the price of a deletion that stays deleted.
 */
export class TraceDeletions1764100000000 implements MigrationInterface {
  name = 'TraceDeletions1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE deleted_traces (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        deleted_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE deleted_traces');
  }
}
