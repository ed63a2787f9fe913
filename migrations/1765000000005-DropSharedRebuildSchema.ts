import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rebuilds now build in a shadow schema of their own projection (`spanlog_rebuild_<name>`), so
 * two projections can be rebuilt at once. The schema every rebuild used to share is left only
 * by a rebuild that died before its swap, holding nothing the live tables need.
 */
export class DropSharedRebuildSchema1765000000005 implements MigrationInterface {
  name = 'DropSharedRebuildSchema1765000000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA IF EXISTS spanlog_rebuild CASCADE`);
  }

  /** Nothing to restore: the schema only ever held an unfinished rebuild's copies. */
  async down(): Promise<void> {}
}
