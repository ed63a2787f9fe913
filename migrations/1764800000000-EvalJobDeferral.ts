import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An evaluation job whose webhook URL already has its share of the worker is deferred: it goes
 * back to `queued` until `available_at`, and the relay publishes it again then (the message
 * id counts `deferrals`, so the stream does not drop it as a duplicate). Waiting in the table
 * rather than in the stream keeps a slow URL's backlog from filling the consumer's pending
 * messages, which every other URL's jobs need.
 */
export class EvalJobDeferral1764800000000 implements MigrationInterface {
  name = 'EvalJobDeferral1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE eval_jobs
        ADD COLUMN available_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN deferrals integer NOT NULL DEFAULT 0 CHECK (deferrals >= 0);
      UPDATE eval_jobs SET available_at = created_at WHERE status = 'queued';
      DROP INDEX eval_jobs_queued_idx;
      CREATE INDEX eval_jobs_available_idx ON eval_jobs (available_at) WHERE status = 'queued';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX eval_jobs_available_idx;
      CREATE INDEX eval_jobs_queued_idx ON eval_jobs (created_at) WHERE status = 'queued';
      ALTER TABLE eval_jobs DROP COLUMN available_at, DROP COLUMN deferrals;
    `);
  }
}
