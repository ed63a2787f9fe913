import type { EntityManager } from 'typeorm';
import { TELEMETRY_TABLES } from './telemetry-writer';

/** Where a rebuild writes the new read models while the live ones keep serving. */
export const SHADOW_SCHEMA = 'spanlog_rebuild';

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The schema the live tables are in; ask before `writeToShadowTables` changes the search path. */
export async function liveSchema(manager: EntityManager): Promise<string> {
  const [{ schema }] = await manager.query('SELECT current_schema() AS schema');
  return schema;
}

/**
 * Empty copies of the live tables (columns, defaults, generated columns, checks, primary
 * key) in the shadow schema, replacing any a failed rebuild left. Secondary indexes come
 * later (`indexShadowTables`): building them once at the end is cheaper than keeping them
 * up to date through the whole replay.
 */
export async function createShadowTables(manager: EntityManager, live: string): Promise<void> {
  await manager.query(`DROP SCHEMA IF EXISTS ${ident(SHADOW_SCHEMA)} CASCADE`);
  await manager.query(`CREATE SCHEMA ${ident(SHADOW_SCHEMA)}`);
  for (const table of TELEMETRY_TABLES) {
    await manager.query(
      `CREATE TABLE ${ident(SHADOW_SCHEMA)}.${ident(table)} (LIKE ${ident(live)}.${ident(table)} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION)`,
    );
    const [pk] = await manager.query(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
      [`${ident(live)}.${ident(table)}`],
    );
    await manager.query(`ALTER TABLE ${ident(SHADOW_SCHEMA)}.${ident(table)} ADD CONSTRAINT ${ident(pk.name)} ${pk.definition}`);
  }
}

/** The live tables' other indexes, under the same names, on the shadow tables. */
export async function indexShadowTables(manager: EntityManager, live: string): Promise<void> {
  for (const table of TELEMETRY_TABLES) {
    const indexes: { definition: string }[] = await manager.query(
      `SELECT pg_get_indexdef(i.indexrelid) AS definition
         FROM pg_index i
        WHERE i.indrelid = $1::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
      [`${ident(live)}.${ident(table)}`],
    );
    for (const { definition } of indexes) {
      const onShadow = definition.replace(` ON ${live}.${table} `, ` ON ${ident(SHADOW_SCHEMA)}.${ident(table)} `);
      if (onShadow === definition) throw new Error(`cannot place index on the shadow table: ${definition}`);
      await manager.query(onShadow);
    }
  }
}

/**
 * Makes unqualified table names in this transaction mean the shadow tables, so the
 * projection's own writer fills them; tombstones and functions still come from the live schema.
 */
export async function writeToShadowTables(manager: EntityManager, live: string): Promise<void> {
  await manager.query(`SELECT set_config('search_path', $1, true)`, [`${ident(SHADOW_SCHEMA)}, ${ident(live)}`]);
}

/** How long the swap waits for the live tables; meanwhile every reader and writer queues behind it. */
export const SWAP_LOCK_TIMEOUT_MS = 30_000;

/** The swap could not lock the live tables in time; its transaction rolled back and nothing changed. */
export class LiveTablesBusyError extends Error {}

/**
 * Blocks every writer and reader of the live tables until this transaction ends. Taken in
 * the writers' order (TELEMETRY_TABLES), so a writer either finished before or waits. Gives
 * up after SWAP_LOCK_TIMEOUT_MS rather than keep the queue behind it waiting on a long
 * transaction of someone else's.
 */
export async function lockLiveTables(manager: EntityManager, live: string, timeoutMs = SWAP_LOCK_TIMEOUT_MS): Promise<void> {
  await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${timeoutMs}ms`]);
  try {
    await manager.query(`LOCK TABLE ${TELEMETRY_TABLES.map((t) => `${ident(live)}.${ident(t)}`).join(', ')} IN ACCESS EXCLUSIVE MODE`);
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') throw new LiveTablesBusyError(`the live tables stayed in use for ${timeoutMs / 1000} s`);
    throw err;
  }
}

/**
 * Replaces the live tables with the shadow ones, inside the caller's transaction (which
 * holds `lockLiveTables`). Statements waiting on the lock find the new tables by name
 * once it is released.
 */
export async function swapInShadowTables(manager: EntityManager, live: string): Promise<void> {
  await manager.query(`DROP TABLE ${TELEMETRY_TABLES.map((t) => `${ident(live)}.${ident(t)}`).join(', ')}`);
  for (const table of TELEMETRY_TABLES) await manager.query(`ALTER TABLE ${ident(SHADOW_SCHEMA)}.${ident(table)} SET SCHEMA ${ident(live)}`);
  await manager.query(`DROP SCHEMA ${ident(SHADOW_SCHEMA)}`);
}

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
 * live tables locked.
 */
export async function countRowsOnlyInShadow(manager: EntityManager, live: string, table: 'traces' | 'spans', rows: ReplayedRow[]): Promise<{ orgId: string; month: string; n: number }[]> {
  if (!rows.length) return [];
  return manager.query(
    `SELECT r.org_id AS "orgId", to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS n
       FROM jsonb_to_recordset($1::jsonb) AS r (org_id uuid, project_id uuid, id uuid)
       JOIN ${ident(SHADOW_SCHEMA)}.${ident(table)} s ON s.project_id = r.project_id AND s.id = r.id
      WHERE NOT EXISTS (SELECT 1 FROM ${ident(live)}.${ident(table)} l WHERE l.project_id = r.project_id AND l.id = r.id)
      GROUP BY 1, 2`,
    [JSON.stringify(rows.map((r) => ({ org_id: r.orgId, project_id: r.projectId, id: r.id })))],
  );
}

/** Rows in the shadow tables, for the rebuild's report. */
export async function countShadowRows(manager: EntityManager): Promise<{ traces: number; spans: number; scores: number }> {
  const count = (table: string) => `(SELECT count(*) FROM ${ident(SHADOW_SCHEMA)}.${ident(table)})::int AS ${table}`;
  const [rows] = await manager.query(`SELECT ${TELEMETRY_TABLES.map(count).join(', ')}`);
  return rows;
}

export async function dropShadowTables(manager: EntityManager): Promise<void> {
  await manager.query(`DROP SCHEMA IF EXISTS ${ident(SHADOW_SCHEMA)} CASCADE`);
}
