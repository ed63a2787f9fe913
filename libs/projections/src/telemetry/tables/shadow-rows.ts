import type { EntityManager } from 'typeorm';
import { type ShadowTables, liveTable, shadowTable } from '../../rebuild/shadow-tables';

/** A trace or span a replayed message wrote, with the organization its usage belongs to. */
export interface ReplayedRow {
  orgId: string;
  projectId: string;
  id: string;
}

/**
 * Of `rows`, those the shadow table has and the live one lacks, counted per organization
 * and UTC month of creation: rows the live projection has not created yet, and so will
 * never count, because once the swap is done it finds them already there. Call with the
 * live tables locked. The rows go as three uuid arrays: every row of a rebuild whose live
 * projection was far behind can be here, and objects in one `jsonb` took a third longer
 * (500,000 spans: 2.8 against 2.0 s, issue 25).
 */
export async function countRowsOnlyInShadow(
  manager: EntityManager,
  s: ShadowTables,
  table: 'traces' | 'spans',
  rows: ReplayedRow[],
): Promise<{ orgId: string; month: string; n: number }[]> {
  if (!rows.length) return [];
  return manager.query(
    `SELECT r.org_id AS "orgId", to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS n
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS r (org_id, project_id, id)
       JOIN ${shadowTable(s, table)} s ON s.project_id = r.project_id AND s.id = r.id
      WHERE NOT EXISTS (SELECT 1 FROM ${liveTable(s, table)} l WHERE l.project_id = r.project_id AND l.id = r.id)
      GROUP BY 1, 2`,
    [rows.map((r) => r.orgId), rows.map((r) => r.projectId), rows.map((r) => r.id)],
  );
}
