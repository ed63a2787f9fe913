import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { UsageCounted } from '@app/domain';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { auditProjection } from '../audit/audit.projection';
import { telemetryProjection } from '../telemetry/telemetry.projection';
import { usageProjection } from '../usage/usage.projection';
import {
  LiveTablesBusyError,
  createShadowTables,
  indexShadowTables,
  lockLiveTables,
  shadowTablesOf,
  swapInShadowTables,
  writeToShadowTables,
} from './shadow-tables';

describe('shadow tables', () => {
  const db = useTestDatabase();

  /** Every index and constraint of the tables, by name, with what it is on; their extended statistics by what they count (the copy's name is Postgres's). */
  const names = async (tables: readonly string[]) => ({
    indexes: await db.ds.query(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename = ANY($1) AND schemaname = 'public' ORDER BY 1, 2`,
      [tables],
    ),
    constraints: await db.ds.query(
      `SELECT conrelid::regclass::text AS tablename, conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid::regclass::text = ANY($1) ORDER BY 1, 2`,
      [tables],
    ),
    statistics: await db.ds.query(
      `SELECT e.stxrelid::regclass::text AS tablename, e.stxkind, pg_get_expr(e.stxexprs, e.stxrelid) AS expressions, n.nspname
         FROM pg_statistic_ext e JOIN pg_namespace n ON n.oid = e.stxnamespace WHERE e.stxrelid::regclass::text = ANY($1) ORDER BY 1, 3`,
      [tables],
    ),
  });

  const swapEmpty = async (projection: typeof telemetryProjection | typeof usageProjection | typeof auditProjection) => {
    const shadow = await shadowTablesOf(db.ds.manager, projection);
    await createShadowTables(db.ds.manager, shadow);
    await indexShadowTables(db.ds.manager, shadow);
    await db.ds.transaction(async (m) => {
      await lockLiveTables(m, shadow);
      await swapInShadowTables(m, shadow);
    });
  };

  it('swaps in copies with the same columns, checks, generated column, index names and extended statistics', async () => {
    const before = await names(telemetryProjection.tables);
    expect(before.statistics).toEqual([
      expect.objectContaining({ tablename: 'scores', nspname: 'public' }),
      expect.objectContaining({ tablename: 'traces', nspname: 'public' }),
    ]);
    await swapEmpty(telemetryProjection);
    expect(await names(telemetryProjection.tables)).toEqual(before);
    await expect(
      db.ds.query(`INSERT INTO spans (project_id, id, created_at, level) VALUES (gen_random_uuid(), gen_random_uuid(), now(), 'LOUD')`),
    ).rejects.toThrow(/check constraint/);
    const [trace] = await db.ds.query(
      `INSERT INTO traces (project_id, id, first_event_time, created_at) VALUES (gen_random_uuid(), gen_random_uuid(), '2026-01-01T00:00:00Z', now()) RETURNING "timestamp"`,
    );
    expect(trace.timestamp.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(await db.ds.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'spanlog_rebuild%'`)).toEqual([]);
  });

  it('keeps the names of the usage and audit tables, their checks and their partial index', async () => {
    for (const projection of [usageProjection, auditProjection]) {
      const before = await names(projection.tables);
      await swapEmpty(projection);
      expect(await names(projection.tables)).toEqual(before);
    }
    await expect(db.ds.query(`INSERT INTO usage_counters (org_id, month) VALUES (gen_random_uuid(), '2026-1')`)).rejects.toThrow(
      /check constraint/,
    );
  });

  it('gives up on the swap, changing nothing, when the live tables stay in use', async () => {
    const holder = db.ds.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query('SELECT count(*) FROM spans');
      const shadow = await shadowTablesOf(db.ds.manager, telemetryProjection);
      await expect(db.ds.transaction((m) => lockLiveTables(m, shadow, 200))).rejects.toBeInstanceOf(LiveTablesBusyError);
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
  });

  it('lets a live write that waited on the swap apply to the new tables, each count once, without failing', async () => {
    const orgId = randomUUID();
    const count = (n: number): UsageCounted => ({ id: randomUUID(), orgId, month: '2026-11', metric: 'spans', n, source: 'live' });
    // Applied live before the rebuild; replayed by the rebuild; only in the live batch that waits on the swap.
    const [applied, replayed, liveOnly] = [count(2), count(3), count(4)];
    await db.ds.transaction((m) => usageProjection.apply(m, [applied]));
    const shadow = await shadowTablesOf(db.ds.manager, usageProjection);
    await createShadowTables(db.ds.manager, shadow);
    const swapper = db.ds.createQueryRunner();
    await swapper.connect();
    try {
      await swapper.startTransaction();
      await lockLiveTables(swapper.manager, shadow);
      const live = db.ds.transaction((m) => usageProjection.apply(m, [replayed, liveOnly]));
      await waitUntilBlocked(db.ds);
      await writeToShadowTables(swapper.manager, shadow);
      await usageProjection.apply(swapper.manager, [applied, replayed]);
      await swapInShadowTables(swapper.manager, shadow);
      await swapper.commitTransaction();
      await live;
    } finally {
      await swapper.release();
    }
    expect(await db.ds.query('SELECT spans::int FROM usage_counters WHERE org_id = $1', [orgId])).toEqual([{ spans: 2 + 3 + 4 }]);
    expect(
      await db.ds.query('SELECT count(*)::int AS n FROM usage_applied WHERE id = ANY($1)', [[applied.id, replayed.id, liveOnly.id]]),
    ).toEqual([{ n: 3 }]);
  });
});

/** Until another session of this database waits for a lock. */
async function waitUntilBlocked(ds: DataSource): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no session waited for the lock');
}
