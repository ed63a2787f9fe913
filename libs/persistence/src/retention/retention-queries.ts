import type { DataSource } from 'typeorm';
import type { PlanName } from '@app/domain';

/** Organizations on one of `plans`, in id order. */
export function organizationsOnPlans(db: Pick<DataSource, 'query'>, plans: PlanName[]): Promise<{ id: string; plan: PlanName }[]> {
  return db.query('SELECT id, plan FROM organizations WHERE plan = ANY($1) ORDER BY id', [plans]);
}

export async function projectIdsOf(db: Pick<DataSource, 'query'>, orgId: string): Promise<string[]> {
  const rows: { id: string }[] = await db.query('SELECT id FROM projects WHERE org_id = $1 ORDER BY id', [orgId]);
  return rows.map((r) => r.id);
}

/** Up to `limit` of the project's traces created before `cutoff`, oldest first. */
export async function tracesCreatedBefore(db: Pick<DataSource, 'query'>, projectId: string, cutoff: Date, limit: number): Promise<string[]> {
  const rows: { id: string }[] = await db.query('SELECT id FROM traces WHERE project_id = $1 AND created_at < $2 ORDER BY created_at, id LIMIT $3', [projectId, cutoff.toISOString(), limit]);
  return rows.map((r) => r.id);
}

/** The rows that deleting the project's `traceIds` removes. */
export async function rowsOfTraces(db: Pick<DataSource, 'query'>, projectId: string, traceIds: string[]): Promise<{ traces: number; spans: number; scores: number }> {
  const [rows] = await db.query(
    `SELECT $3::int AS traces,
            (SELECT count(*) FROM spans WHERE project_id = $1 AND trace_id = ANY($2::uuid[]))::int AS spans,
            (SELECT count(*) FROM scores WHERE project_id = $1 AND trace_id = ANY($2::uuid[]))::int AS scores`,
    [projectId, traceIds, traceIds.length],
  );
  return rows;
}
