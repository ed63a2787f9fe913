import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last run of each scheduled processor job (retention, verify, monitors), by which the
 * processors run each once per period however many there are, and finish a run whose
 * processor was killed (docs/ARCHITECTURE.md "Replicas"). `holder` names the process, for people.
 */
export class ScheduledJobRuns1767120000001 implements MigrationInterface {
  name = 'ScheduledJobRuns1767120000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scheduled_job_runs (
        job text PRIMARY KEY,
        holder text NOT NULL,
        started_at timestamptz NOT NULL,
        -- NULL while the run is under way, or after its processor died in it.
        finished_at timestamptz
      )
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE scheduled_job_runs`);
  }
}
