import 'reflect-metadata';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { loadConfig, privateNetworkWarning } from '@app/config';
import { hashApiKey } from '@app/domain';
import { NatsResources } from '@app/eventlog';
import { type BootstrapResult, bootstrapTenant, createDataSource, ensureDatabaseExists } from '@app/persistence';
import { ensureNats, ensurePostgres, repoRoot } from './local-services';

/**
 * `npm start`: finds (or starts) Postgres and NATS, migrates, creates the streams, makes a
 * demo tenant on first run, then runs the API and the processor until a signal stops both.
 */

const ROOT = repoRoot();
const DEMO_FILE = resolve(ROOT, '.spanlog', 'demo.json');
const DEMO = { email: 'demo@spanlog.local', password: 'spanlog-demo', org: 'Demo', project: 'demo' };
const say = (line: string) => process.stderr.write(`spanlog: ${line}\n`);

async function demoKeyStillValid(databaseUrl: string, demo: BootstrapResult): Promise<boolean> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hashApiKey(demo.apiKey)]);
    return rowCount === 1;
  } finally {
    await client.end();
  }
}

async function prepare(): Promise<NodeJS.ProcessEnv> {
  const config = loadConfig();
  const warning = privateNetworkWarning(config);
  if (warning) say(`WARNING: ${warning}`);
  const databaseUrl = await ensurePostgres(config.databaseUrl, say);
  await ensureNats(config.natsUrl, say);
  const env = { ...process.env, DATABASE_URL: databaseUrl };

  await ensureDatabaseExists(databaseUrl);
  const ds = createDataSource({ url: databaseUrl, poolSize: 2, applicationName: 'spanlog-start' });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    if (applied.length) say(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
    const nats = await NatsResources.open(config.natsUrl, 'spanlog-start', config.streamPrefix);
    await nats.close();

    let demo: BootstrapResult | null = existsSync(DEMO_FILE) ? (JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as BootstrapResult) : null;
    if (!demo || !(await demoKeyStillValid(databaseUrl, demo))) {
      demo = await bootstrapTenant(ds, { email: DEMO.email, password: DEMO.password, orgName: DEMO.org, projectName: DEMO.project, keyName: 'demo' });
      mkdirSync(resolve(ROOT, '.spanlog'), { recursive: true });
      writeFileSync(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
    }
    say(`demo login ${DEMO.email} / ${DEMO.password}; org ${demo.orgId}, project ${demo.projectId}`);
    say(`demo API key ${demo.apiKey}  (kept in .spanlog/demo.json)`);
  } finally {
    await ds.destroy();
  }
  return env;
}

function run(env: NodeJS.ProcessEnv): void {
  const children: ChildProcess[] = ['api', 'processor'].map((app) =>
    spawn(process.execPath, [resolve(ROOT, 'dist', 'apps', app, 'src', 'main.js')], { env, stdio: 'inherit' }),
  );
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  };
  let exited = 0;
  let failed = false;
  for (const child of children) {
    child.on('exit', (code) => {
      failed ||= !stopping && code !== 0;
      // One app gone means the service is not whole: stop the other one too.
      stopAll('SIGTERM');
      if (++exited === children.length) process.exit(failed ? 1 : 0);
    });
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stopAll('SIGTERM'));
  say(`API on http://${env.HOST ?? '127.0.0.1'}:${env.PORT ?? '3000'}; Ctrl-C stops both apps`);
}

prepare()
  .then(run)
  .catch((err: unknown) => {
    say(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
