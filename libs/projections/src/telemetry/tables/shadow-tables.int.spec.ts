import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { type TestDatabase, createTestDatabase } from '@app/persistence/testing/test-database';
import { LiveTablesBusyError, createShadowTables, indexShadowTables, liveSchema, lockLiveTables, swapInShadowTables } from './shadow-tables';

describe('shadow tables', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = db.ds;
  });
  afterAll(() => db?.drop());

  const indexes = async () =>
    (await ds.query(`SELECT tablename, indexname FROM pg_indexes WHERE tablename IN ('traces', 'spans', 'scores') AND schemaname = 'public' ORDER BY 1, 2`)) as unknown[];

  it('swaps in copies with the same columns, checks, generated column and index names', async () => {
    const before = await indexes();
    const live = await liveSchema(ds.manager);
    await createShadowTables(ds.manager, live);
    await indexShadowTables(ds.manager, live);
    await ds.transaction(async (m) => {
      await lockLiveTables(m, live);
      await swapInShadowTables(m, live);
    });
    expect(await indexes()).toEqual(before);
    await expect(ds.query(`INSERT INTO spans (project_id, id, created_at, level) VALUES (gen_random_uuid(), gen_random_uuid(), now(), 'LOUD')`)).rejects.toThrow(/check constraint/);
    const [trace] = await ds.query(
      `INSERT INTO traces (project_id, id, first_event_time, created_at) VALUES (gen_random_uuid(), gen_random_uuid(), '2026-01-01T00:00:00Z', now()) RETURNING "timestamp"`,
    );
    expect(trace.timestamp.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(await ds.query(`SELECT nspname FROM pg_namespace WHERE nspname = 'spanlog_rebuild'`)).toEqual([]);
  });

  it('gives up on the swap, changing nothing, when the live tables stay in use', async () => {
    const holder = ds.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query('SELECT count(*) FROM spans');
      const live = await liveSchema(ds.manager);
      await expect(ds.transaction((m) => lockLiveTables(m, live, 200))).rejects.toBeInstanceOf(LiveTablesBusyError);
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
  });
});
