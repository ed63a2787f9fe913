import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each stats bucket was first marked for recount. The processor's refresher leaves a mark
 * alone until it is a few seconds old, so a bucket that a backlog's drain marks in every batch is
 * recounted every few seconds instead of every second (a recount reads the whole bucket and the
 * drain's batches wait on it). A mark made again while one is waiting keeps the first time, so
 * no bucket waits longer than that.
 */
export class StatsMarkTimes1765000000002 implements MigrationInterface {
  name = 'StatsMarkTimes1765000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE model_stats_dirty ADD COLUMN marked_at timestamptz NOT NULL DEFAULT now()`);
    await q.query(`ALTER TABLE stats_5m_dirty ADD COLUMN marked_at timestamptz NOT NULL DEFAULT now()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE stats_5m_dirty DROP COLUMN marked_at`);
    await q.query(`ALTER TABLE model_stats_dirty DROP COLUMN marked_at`);
  }
}
