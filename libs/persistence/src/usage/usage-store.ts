import type { DataSource, EntityManager } from 'typeorm';
import type { UsageCounted, UsageMetric } from '@app/domain';

export interface UsageCount {
  orgId: string;
  month: string;
  metric: UsageMetric;
  n: number;
}

/**
 * The outbox of usage counts: the live projection queues them in the transaction that wrote the
 * rows they count, and `UsageRelay` moves them to USAGE, deleting them in the transaction that
 * took them. Over the manager of the caller's transaction.
 */
export class UsageOutbox {
  constructor(private readonly db: EntityManager) {}

  /** Queues counts in the caller's transaction, so they exist exactly when the rows they count do. */
  async queue(counts: UsageCount[]): Promise<void> {
    const rows = counts.filter((c) => c.n > 0);
    if (!rows.length) return;
    await this.db.query(
      `INSERT INTO usage_outbox (org_id, month, metric, n)
       SELECT org_id, month, metric, n FROM jsonb_to_recordset($1::jsonb) AS r (org_id uuid, month text, metric text, n int)`,
      [JSON.stringify(rows.map((c) => ({ org_id: c.orgId, month: c.month, metric: c.metric, n: c.n })))],
    );
  }

  /**
   * Locks up to `limit` queued counts, oldest first, as the events that publish them (the outbox
   * id is the event id). SKIP LOCKED: several relays never take the same row at once.
   */
  async take(limit: number): Promise<UsageCounted[]> {
    const rows: { id: string; orgId: string; month: string; metric: UsageMetric; n: number }[] = await this.db.query(
      `SELECT id, org_id AS "orgId", month, metric, n FROM usage_outbox ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map((r) => ({ ...r, source: 'live' as const }));
  }

  /** Removes counts from the outbox once they are published. */
  async delete(ids: string[]): Promise<void> {
    await this.db.query('DELETE FROM usage_outbox WHERE id = ANY($1::uuid[])', [ids]);
  }
}

export interface MonthUsage {
  traces: number;
  spans: number;
  evalRuns: number;
}

export class UsageQueries {
  constructor(private readonly db: DataSource) {}

  async month(orgId: string, month: string): Promise<MonthUsage> {
    const rows = await this.db.query('SELECT traces, spans, eval_runs AS "evalRuns" FROM usage_counters WHERE org_id = $1 AND month = $2', [
      orgId,
      month,
    ]);
    return rows[0] ?? { traces: 0, spans: 0, evalRuns: 0 };
  }

  /**
   * The month's traces and evaluator runs per UTC day, for the dashboard's chart, counted from
   * the read models by when each row was first received (`created_at`, from the envelope, so a
   * rebuild gives the same days). Rows that retention has deleted no longer count, so on a plan
   * whose retention is shorter than a month the early days fall to zero; the month's counter
   * (`month`) stays the figure that quotas and billing read.
   */
  async days(orgId: string, month: string): Promise<DayUsage[]> {
    const rows: { day: string; traces: string; evalRuns: string }[] = await this.db.query(
      `WITH bounds AS (SELECT ($2 || '-01')::timestamp AT TIME ZONE 'UTC' AS lo, (($2 || '-01')::timestamp + interval '1 month') AT TIME ZONE 'UTC' AS hi),
            projects AS (SELECT id FROM projects WHERE org_id = $1),
            t AS (SELECT date_trunc('day', tr.created_at AT TIME ZONE 'UTC') AS day, count(*) AS n FROM traces tr, bounds b
                   WHERE tr.project_id IN (SELECT id FROM projects) AND tr.created_at >= b.lo AND tr.created_at < b.hi GROUP BY 1),
            e AS (SELECT date_trunc('day', s.created_at AT TIME ZONE 'UTC') AS day, count(*) AS n FROM scores s, bounds b
                   WHERE s.project_id IN (SELECT id FROM projects) AND s.source = 'EVAL' AND s.created_at >= b.lo AND s.created_at < b.hi GROUP BY 1)
       SELECT to_char(coalesce(t.day, e.day), 'YYYY-MM-DD') AS day, coalesce(t.n, 0) AS traces, coalesce(e.n, 0) AS "evalRuns"
         FROM t FULL JOIN e ON e.day = t.day ORDER BY 1`,
      [orgId, month],
    );
    return rows.map((r) => ({ day: r.day, traces: Number(r.traces), evalRuns: Number(r.evalRuns) }));
  }
}

export interface DayUsage {
  day: string;
  traces: number;
  evalRuns: number;
}
