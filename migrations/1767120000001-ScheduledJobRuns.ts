import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last start of each scheduled processor job (retention, verify, monitors), which the
 * processors claim periods with, so a job runs once per period however many run
 * (docs/ARCHITECTURE.md "Replicas"). `holder` names the process, for people.
 */
export class ScheduledJobRuns1767120000001 implements MigrationInterface {
  name = 'ScheduledJobRuns1767120000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scheduled_job_runs (
        job text PRIMARY KEY,
        holder text NOT NULL,
        started_at timestamptz NOT NULL
      )
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE scheduled_job_runs`);
  }
}
