import type { DataSource, EntityManager } from 'typeorm';
import type { UsageCounted, UsageMetric } from '@app/domain';

export interface UsageCount {
  orgId: string;
  month: string;
  metric: UsageMetric;
  n: number;
}

/** Queues counts in the caller's transaction, so they exist exactly when the rows they count do. */
export async function queueUsage(manager: EntityManager, counts: UsageCount[]): Promise<void> {
  const rows = counts.filter((c) => c.n > 0);
  if (!rows.length) return;
  await manager.query(
    `INSERT INTO usage_outbox (org_id, month, metric, n)
     SELECT org_id, month, metric, n FROM jsonb_to_recordset($1::jsonb) AS r (org_id uuid, month text, metric text, n int)`,
    [JSON.stringify(rows.map((c) => ({ org_id: c.orgId, month: c.month, metric: c.metric, n: c.n })))],
  );
}

/**
 * Hands queued counts to `publish` and deletes them once it resolved, in one transaction
 * that locks them (SKIP LOCKED: several relays never publish the same row twice at once).
 * A crash between publish and commit publishes again; the id makes that harmless.
 */
export async function relayUsage(db: DataSource, limit: number, publish: (events: UsageCounted[]) => Promise<void>): Promise<number> {
  return db.transaction(async (m) => {
    const rows: { id: string; orgId: string; month: string; metric: UsageMetric; n: number }[] = await m.query(
      `SELECT id, org_id AS "orgId", month, metric, n FROM usage_outbox ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (!rows.length) return 0;
    await publish(rows.map((r) => ({ ...r, source: 'live' as const })));
    await m.query('DELETE FROM usage_outbox WHERE id = ANY($1::uuid[])', [rows.map((r) => r.id)]);
    return rows.length;
  });
}

/** Adds each event to its organization's month once: an id seen before changes nothing. */
export async function applyUsage(manager: EntityManager, events: UsageCounted[]): Promise<void> {
  if (!events.length) return;
  await manager.query(
    `WITH incoming AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r (id uuid, org_id uuid, month text, metric text, n bigint)
     ), fresh AS (
       INSERT INTO usage_applied (id) SELECT DISTINCT id FROM incoming ON CONFLICT DO NOTHING RETURNING id
     ), sums AS (
       SELECT i.org_id, i.month,
              sum(i.n) FILTER (WHERE i.metric = 'traces') AS traces,
              sum(i.n) FILTER (WHERE i.metric = 'spans') AS spans,
              sum(i.n) FILTER (WHERE i.metric = 'eval_runs') AS eval_runs
         FROM (SELECT DISTINCT ON (id) * FROM incoming) i JOIN fresh f ON f.id = i.id
        GROUP BY i.org_id, i.month
     )
     INSERT INTO usage_counters AS c (org_id, month, traces, spans, eval_runs)
     SELECT org_id, month, coalesce(traces, 0), coalesce(spans, 0), coalesce(eval_runs, 0) FROM sums ORDER BY org_id, month
     ON CONFLICT (org_id, month) DO UPDATE
       SET traces = c.traces + excluded.traces, spans = c.spans + excluded.spans,
           eval_runs = c.eval_runs + excluded.eval_runs, updated_at = now()`,
    [JSON.stringify(events.map((e) => ({ id: e.id, org_id: e.orgId, month: e.month, metric: e.metric, n: e.n })))],
  );
}

export interface MonthUsage {
  traces: number;
  spans: number;
  evalRuns: number;
}

export class UsageQueries {
  constructor(private readonly db: DataSource) {}

  async month(orgId: string, month: string): Promise<MonthUsage> {
    const rows = await this.db.query(
      'SELECT traces, spans, eval_runs AS "evalRuns" FROM usage_counters WHERE org_id = $1 AND month = $2',
      [orgId, month],
    );
    return rows[0] ?? { traces: 0, spans: 0, evalRuns: 0 };
  }
}
