import type { DataSource, EntityManager } from 'typeorm';
import type { PlanName } from '@app/domain';

/** What the retention cleanup reads before it deletes: plain queries, the deleting is the telemetry writer's. */
export class RetentionQueries {
  constructor(private readonly db: DataSource | EntityManager) {}

  /** Organizations on one of `plans`, in id order. */
  organizationsOnPlans(plans: PlanName[]): Promise<{ id: string; plan: PlanName }[]> {
    return this.db.query('SELECT id, plan FROM organizations WHERE plan = ANY($1) ORDER BY id', [plans]);
  }

  async projectIdsOf(orgId: string): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query('SELECT id FROM projects WHERE org_id = $1 ORDER BY id', [orgId]);
    return rows.map((r) => r.id);
  }

  /** Up to `limit` of the project's traces created before `cutoff`, oldest first. */
  async tracesCreatedBefore(projectId: string, cutoff: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      'SELECT id FROM traces WHERE project_id = $1 AND created_at < $2 ORDER BY created_at, id LIMIT $3',
      [projectId, cutoff.toISOString(), limit],
    );
    return rows.map((r) => r.id);
  }

  /** The rows that deleting the project's `traceIds` removes. */
  async rowsOfTraces(projectId: string, traceIds: string[]): Promise<{ traces: number; spans: number; scores: number }> {
    const [rows] = await this.db.query(
      `SELECT $3::int AS traces,
              (SELECT count(*) FROM spans WHERE project_id = $1 AND trace_id = ANY($2::uuid[]))::int AS spans,
              (SELECT count(*) FROM scores WHERE project_id = $1 AND trace_id = ANY($2::uuid[]))::int AS scores`,
      [projectId, traceIds, traceIds.length],
    );
    return rows;
  }
}
