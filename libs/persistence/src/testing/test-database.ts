import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../data-source';
import { ensureDatabaseExists } from '../database-admin';

const ADMIN_URL = process.env.SPANLOG_TEST_ADMIN_DB_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  ds: DataSource;
  /** Closes the connections and drops the database. */
  drop(): Promise<void>;
}

/** A migrated database of its own for one integration test file (set up by test/support/global-setup.ts). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `spanlog_it_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  await ensureDatabaseExists(url.toString());
  const ds = createDataSource({ url: url.toString(), poolSize: 4 });
  await ds.initialize();
  await ds.runMigrations();
  return {
    ds,
    drop: async () => {
      await ds.destroy();
      const admin = new Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
    },
  };
}
