import { Client } from 'pg';

/** Creates the database named in `url` when it does not exist, connecting to its server's `postgres` database. */
export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`cannot connect to Postgres at ${target.host}: ${(err as Error).message}`);
  }
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        // Someone else created it meanwhile.
        if (err.code !== '42P04') throw err;
      });
    }
  } finally {
    await client.end();
  }
}
