import type { EntityManager } from 'typeorm';
import type { ProjectionIdentity } from '../projection';

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Where a rebuild writes a projection's new tables while the live ones keep serving: a schema
 * of its own per projection, so rebuilds of different projections may run at once.
 */
export interface ShadowTables {
  /** The schema the live tables are in. */
  live: string;
  /** The shadow schema. */
  schema: string;
  /** The projection's tables, in the order its writers lock them. */
  tables: readonly string[];
}

/** The projection's shadow tables; ask before `writeToShadowTables` changes the search path. */
export async function shadowTablesOf(manager: EntityManager, projection: ProjectionIdentity): Promise<ShadowTables> {
  const [{ schema }] = await manager.query('SELECT current_schema() AS schema');
  return { live: schema, schema: `spanlog_rebuild_${projection.name.replace(/[^a-z0-9]+/g, '_')}`, tables: projection.tables };
}

/** A live table's qualified name, quoted. */
export const liveTable = (s: ShadowTables, table: string): string => `${ident(s.live)}.${ident(table)}`;
/** A shadow table's qualified name, quoted. */
export const shadowTable = (s: ShadowTables, table: string): string => `${ident(s.schema)}.${ident(table)}`;

/**
 * Empty copies of the live tables (columns, defaults, generated columns, checks, extended
 * statistics, primary key) in the shadow schema, replacing any a failed rebuild left. Secondary indexes come
 * later (`indexShadowTables`): building them once at the end is cheaper than keeping them
 * up to date through the whole replay.
 */
export async function createShadowTables(manager: EntityManager, s: ShadowTables): Promise<void> {
  await manager.query(`DROP SCHEMA IF EXISTS ${ident(s.schema)} CASCADE`);
  await manager.query(`CREATE SCHEMA ${ident(s.schema)}`);
  for (const table of s.tables) {
    await manager.query(
      `CREATE TABLE ${shadowTable(s, table)} (LIKE ${liveTable(s, table)} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION INCLUDING STATISTICS)`,
    );
    const [pk] = await manager.query(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
      [liveTable(s, table)],
    );
    await manager.query(`ALTER TABLE ${shadowTable(s, table)} ADD CONSTRAINT ${ident(pk.name)} ${pk.definition}`);
  }
}

/** The live tables' other indexes, under the same names, on the shadow tables. */
export async function indexShadowTables(manager: EntityManager, s: ShadowTables): Promise<void> {
  for (const table of s.tables) {
    const indexes: { definition: string }[] = await manager.query(
      `SELECT pg_get_indexdef(i.indexrelid) AS definition
         FROM pg_index i
        WHERE i.indrelid = $1::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
      [liveTable(s, table)],
    );
    for (const { definition } of indexes) {
      const onShadow = definition.replace(` ON ${s.live}.${table} `, ` ON ${shadowTable(s, table)} `);
      if (onShadow === definition) throw new Error(`cannot place index on the shadow table: ${definition}`);
      await manager.query(onShadow);
    }
  }
}

/**
 * Makes unqualified table names in this transaction mean the shadow tables, so the
 * projection's own `apply` fills them; other tables (tombstones) and functions still come
 * from the live schema.
 */
export async function writeToShadowTables(manager: EntityManager, s: ShadowTables): Promise<void> {
  await manager.query(`SELECT set_config('search_path', $1, true)`, [`${ident(s.schema)}, ${ident(s.live)}`]);
}

/** How long the swap waits for the live tables; meanwhile every reader and writer queues behind it. */
export const SWAP_LOCK_TIMEOUT_MS = 30_000;

/** The swap could not lock the live tables in time; its transaction rolled back and nothing changed. */
export class LiveTablesBusyError extends Error {}

/**
 * Blocks every writer and reader of the live tables until this transaction ends. Taken in
 * the writers' order (the definition's `tables`), so a writer either finished before or
 * waits. Gives up after SWAP_LOCK_TIMEOUT_MS rather than keep the queue behind it waiting
 * on a long transaction of someone else's.
 */
export async function lockLiveTables(manager: EntityManager, s: ShadowTables, timeoutMs = SWAP_LOCK_TIMEOUT_MS): Promise<void> {
  await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${timeoutMs}ms`]);
  try {
    await manager.query(`LOCK TABLE ${s.tables.map((t) => liveTable(s, t)).join(', ')} IN ACCESS EXCLUSIVE MODE`);
  } catch (err) {
    if ((err as { code?: string }).code === '55P03')
      throw new LiveTablesBusyError(`the live tables stayed in use for ${timeoutMs / 1000} s`);
    throw err;
  }
}

/**
 * Replaces the live tables with the shadow ones, inside the caller's transaction (which
 * holds `lockLiveTables`). Statements waiting on the lock find the new tables by name
 * once it is released.
 */
export async function swapInShadowTables(manager: EntityManager, s: ShadowTables): Promise<void> {
  await manager.query(`DROP TABLE ${s.tables.map((t) => liveTable(s, t)).join(', ')}`);
  for (const table of s.tables) await manager.query(`ALTER TABLE ${shadowTable(s, table)} SET SCHEMA ${ident(s.live)}`);
  // A table's extended statistics stay in their schema when it moves: they follow it by hand.
  const stats: { name: string }[] = await manager.query(
    `SELECT format('%I.%I', $1::text, stxname) AS name FROM pg_statistic_ext WHERE stxnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)`,
    [s.schema],
  );
  for (const { name } of stats) await manager.query(`ALTER STATISTICS ${name} SET SCHEMA ${ident(s.live)}`);
  await manager.query(`DROP SCHEMA ${ident(s.schema)}`);
}

/** Rows in each shadow table, for the rebuild's report. */
export async function countShadowRows(manager: EntityManager, s: ShadowTables): Promise<Record<string, number>> {
  const [rows] = await manager.query(
    `SELECT ${s.tables.map((t, i) => `(SELECT count(*) FROM ${shadowTable(s, t)})::int AS c${i}`).join(', ')}`,
  );
  return Object.fromEntries(s.tables.map((t, i) => [t, rows[`c${i}`] as number]));
}

export async function dropShadowTables(manager: EntityManager, s: ShadowTables): Promise<void> {
  await manager.query(`DROP SCHEMA IF EXISTS ${ident(s.schema)} CASCADE`);
}
