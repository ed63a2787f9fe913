import type { DataSource } from 'typeorm';

/** What a processor's look at a scheduled job came to: it ran the round, or the period was done or being done elsewhere. */
export type ScheduledJobOutcome = 'ran' | 'skipped';

/**
 * Runs each scheduled processor job (retention, verify, monitors) once per period across
 * processors (docs/ARCHITECTURE.md "Replicas"). A processor looking at a job takes the job's
 * session advisory lock, then starts a run only if the job's row says the period is due: the
 * last run started at least `dueAfterMs` ago, or it never finished. Its holder being killed
 * ends its connection and with it the lock, so the next processor to look finds the run
 * unfinished and runs it again; a run's writes are each in their own transaction, so
 * running again finishes what the killed one left, and leaves nothing half done.
 */
export class ScheduledJobRuns {
  constructor(private readonly db: DataSource) {}

  async runIfDue(job: string, holder: string, dueAfterMs: number, round: () => Promise<void>): Promise<ScheduledJobOutcome> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }]: { locked: boolean }[] = await runner.query(`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`, [
        `spanlog.job.${job}`,
      ]);
      if (!locked) return 'skipped';
      try {
        const started: unknown[] = await runner.query(
          `INSERT INTO scheduled_job_runs AS r (job, holder, started_at) VALUES ($1, $2, clock_timestamp())
           ON CONFLICT (job) DO UPDATE SET holder = EXCLUDED.holder, started_at = EXCLUDED.started_at, finished_at = NULL
           WHERE r.finished_at IS NULL OR r.started_at <= clock_timestamp() - make_interval(secs => $3::float8 / 1000)
           RETURNING 1`,
          [job, holder, dueAfterMs],
        );
        if (!started.length) return 'skipped';
        await round();
        await runner.query(`UPDATE scheduled_job_runs SET finished_at = clock_timestamp() WHERE job = $1`, [job]);
        return 'ran';
      } finally {
        await runner.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`spanlog.job.${job}`]);
      }
    } finally {
      await runner.release();
    }
  }
}
