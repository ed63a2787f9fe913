import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { type AppConfig, loadConfig, privateNetworkWarning } from '@app/config';
import { hashApiKey } from '@app/domain';
import { NatsResources } from '@app/eventlog';
import { type BootstrapResult, bootstrapTenant, createDataSource, ensureDatabaseExists } from '@app/persistence';
import { ensureNats, ensurePostgres, repoRoot } from './local-services';
import { type PortUse, firstTaken, portTakenLine } from './ports';
import { supervise } from './supervise';

/**
 * `npm start`: finds (or starts) Postgres and NATS, migrates, creates the streams, makes a
 * demo tenant on first run, then runs the API and the processor until a signal stops both, or
 * one of them stops and takes the other with it. A port taken is said before anything starts.
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

/** The ports the two apps listen on, with the variable that moves each. */
function portUses(config: AppConfig): PortUse[] {
  const uses: PortUse[] = [{ port: config.port, host: config.host, owner: 'the API', variable: 'PORT' }];
  if (config.metricsPort !== null)
    uses.push({
      port: config.metricsPort,
      host: config.host,
      owner: "the processor's metrics",
      variable: 'METRICS_PORT',
      hint: '(or 0 to serve no metrics)',
    });
  return uses;
}

class PortTakenError extends Error {}

async function prepare(): Promise<{ env: NodeJS.ProcessEnv; ports: PortUse[] }> {
  const config = loadConfig();
  const ports = portUses(config);
  const taken = await firstTaken(ports);
  if (taken) throw new PortTakenError(portTakenLine(taken));
  const warning = privateNetworkWarning(config);
  if (warning) say(`WARNING: ${warning}`);
  const databaseUrl = await ensurePostgres(config.databaseUrl, say);
  await ensureNats(config.natsServers, say);
  const env = { ...process.env, DATABASE_URL: databaseUrl };

  await ensureDatabaseExists(databaseUrl);
  const ds = createDataSource({ url: databaseUrl, poolSize: 2, applicationName: 'spanlog-start' });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    if (applied.length) say(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
    const nats = await NatsResources.open(config, 'spanlog-start', say);
    await nats.close();

    let demo: BootstrapResult | null = existsSync(DEMO_FILE) ? (JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as BootstrapResult) : null;
    if (!demo || !(await demoKeyStillValid(databaseUrl, demo))) {
      demo = await bootstrapTenant(ds, {
        email: DEMO.email,
        password: DEMO.password,
        orgName: DEMO.org,
        projectName: DEMO.project,
        keyName: 'demo',
      });
      mkdirSync(resolve(ROOT, '.spanlog'), { recursive: true });
      writeFileSync(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
    }
    say(`demo login ${DEMO.email} / ${DEMO.password}; org ${demo.orgId}, project ${demo.projectId}`);
    say(`demo API key ${demo.apiKey}  (kept in .spanlog/demo.json)`);
  } finally {
    await ds.destroy();
  }
  return { env, ports };
}

async function run({ env, ports }: { env: NodeJS.ProcessEnv; ports: PortUse[] }): Promise<never> {
  const app = (name: string, dir: string) => ({
    name,
    command: process.execPath,
    args: [resolve(ROOT, 'dist', 'apps', dir, 'src', 'main.js')],
    env,
  });
  const stopped = supervise([app('the API', 'api'), app('the processor', 'processor')], ports, say);
  say(`API on http://${env.HOST ?? '127.0.0.1'}:${env.PORT ?? '3000'}; Ctrl-C stops both apps`);
  process.exit(await stopped);
}

prepare()
  .then(run)
  .catch((err: unknown) => {
    say(err instanceof PortTakenError ? err.message : `cannot start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
