import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { repoRoot } from '../../tools/local-services';

/**
 * A database every migration of this build was run on once, which each test's database is
 * copied from (`CREATE DATABASE … TEMPLATE`, a tenth of a second) instead of running the
 * migrations again (two seconds of a 2-core machine, sixty times a run). Its name carries a
 * hash of the built migrations, so a build with other migrations gets another template.
 */

const ROOT = repoRoot(__dirname);
const PREFIX = 'tpl_spanlog_';
/** Templates of other builds are dropped once they are this old: a run of another checkout may still copy a newer one. */
const STALE_AFTER_MS = 6 * 3_600_000;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The template's name for the built migrations; null when there is no build (unit and int runs need none). */
function templateName(): string | null {
  const dir = resolve(ROOT, 'dist', 'migrations');
  if (!existsSync(dir)) return null;
  const hash = createHash('sha256');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort())
    hash.update(file).update(readFileSync(resolve(dir, file)));
  return `${PREFIX}${hash.digest('hex').slice(0, 16)}`;
}

/**
 * Makes the template when missing (under an advisory lock, so parallel runs make it once) and
 * drops stale ones of other builds; its name, or null without a build. `adminDbUrl` is a URL of
 * the server's `postgres` database.
 */
export async function ensureTemplateDatabase(adminDbUrl: string): Promise<string | null> {
  const name = templateName();
  if (name === null) return null;
  const admin = new Client({ connectionString: adminDbUrl });
  await admin.connect();
  try {
    await admin.query(`SELECT pg_advisory_lock(hashtext('spanlog test template'))`);
    const { rows } = await admin.query<{ datname: string; created: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS created FROM pg_database WHERE datname LIKE $1`,
      [`${PREFIX}%`],
    );
    for (const row of rows) {
      if (row.datname === name || Date.now() - Date.parse(row.created ?? '') < STALE_AFTER_MS) continue;
      await admin.query(`ALTER DATABASE ${quote(row.datname)} WITH IS_TEMPLATE false`);
      await admin.query(`DROP DATABASE IF EXISTS ${quote(row.datname)} WITH (FORCE)`);
    }
    if (rows.some((r) => r.datname === name)) return name;
    // Built under another name and renamed once whole, so a run killed midway leaves no half-migrated template.
    const building = `${name}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${quote(building)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${quote(building)}`);
    const url = new URL(adminDbUrl);
    url.pathname = `/${building}`;
    const migrate = spawnSync(process.execPath, [resolve(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'), 'admin', 'migrate', '--json'], {
      env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    if (migrate.status !== 0) {
      await admin.query(`DROP DATABASE IF EXISTS ${quote(building)} WITH (FORCE)`);
      throw new Error(`migrating the test template database failed: ${migrate.stderr || migrate.error?.message}`);
    }
    await admin.query(`ALTER DATABASE ${quote(building)} RENAME TO ${quote(name)}`);
    await admin.query(`COMMENT ON DATABASE ${quote(name)} IS '${new Date().toISOString()}'`);
    // A template nobody connects to: CREATE DATABASE refuses to copy one with sessions open.
    await admin.query(`ALTER DATABASE ${quote(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    return name;
  } finally {
    await admin.end();
  }
}
