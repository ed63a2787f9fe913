import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../data-source';
import { ensureDatabaseExists } from '../database-admin';

const ADMIN_URL = process.env.SPANLOG_TEST_ADMIN_DB_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface TestDatabase {
  ds: DataSource;
  /** Closes the connections and drops the database. */
  drop(): Promise<void>;
}

/** A migrated database of its own for one integration test file (set up by test/support/global-setup.ts). */
async function createTestDatabase(): Promise<TestDatabase> {
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

export interface TestDatabaseHandle {
  /** The database's DataSource, there from the file's first `beforeAll` on. */
  readonly ds: DataSource;
  /** Its connection URL, for a second DataSource or a listener of its own. */
  readonly url: string;
}

/**
 * The test file's own migrated database: created in `beforeAll`, dropped in `afterAll`. Jest runs
 * `afterAll` hooks in the order they are declared, so teardown that still needs the database
 * (consumers, a second DataSource) is declared before this call.
 */
export function useTestDatabase(): TestDatabaseHandle {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());
  const ds = (): DataSource => {
    if (!db) throw new Error('the test database is created in beforeAll: use it from a hook or a test');
    return db.ds;
  };
  return {
    get ds() {
      return ds();
    },
    get url() {
      return (ds().options as { url: string }).url;
    },
  };
}

/** An organization (on `plan`, the column's default when not given) with one project: the tenancy rows most stores need. */
export async function seedProject(
  ds: DataSource,
  { plan, project = 'p' }: { plan?: string; project?: string } = {},
): Promise<{ orgId: string; projectId: string }> {
  const orgName = `org ${randomUUID()}`;
  const [org] =
    plan === undefined
      ? await ds.query(`INSERT INTO organizations (name) VALUES ($1) RETURNING id`, [orgName])
      : await ds.query(`INSERT INTO organizations (name, plan) VALUES ($1, $2) RETURNING id`, [orgName, plan]);
  const [row] = await ds.query(`INSERT INTO projects (org_id, name) VALUES ($1, $2) RETURNING id`, [org.id, project]);
  return { orgId: org.id as string, projectId: row.id as string };
}
