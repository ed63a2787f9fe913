import type { DataSource } from 'typeorm';

/**
 * A period counts as claimed while its last start is more recent than this share of the
 * interval: processors tick each at its own phase, and a timer that fires a little early must
 * still find the next period open, so a job runs once every 0.9 to 1 interval across the fleet.
 */
const CLAIMED_SHARE_OF_INTERVAL = 0.9;

/**
 * Which processor runs a scheduled job's round this period (docs/ARCHITECTURE.md "Replicas"):
 * the first to claim it, in one statement on the job's row. A processor killed after its
 * claim leaves the period unrun; the first tick of any processor after it claims the next.
 */
export class ScheduledJobClaims {
  constructor(private readonly db: DataSource) {}

  /** Whether `holder` claimed this period of `job`: no start of it within the last 0.9 interval. */
  async claim(job: string, holder: string, intervalMs: number): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO scheduled_job_runs AS r (job, holder, started_at) VALUES ($1, $2, clock_timestamp())
       ON CONFLICT (job) DO UPDATE SET holder = EXCLUDED.holder, started_at = EXCLUDED.started_at
       WHERE r.started_at <= clock_timestamp() - make_interval(secs => $3::float8 / 1000)
       RETURNING 1`,
      [job, holder, intervalMs * CLAIMED_SHARE_OF_INTERVAL],
    );
    return rows.length === 1;
  }
}
