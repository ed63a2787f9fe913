import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type NatsConnection, connect } from 'nats';
import { Client, Pool } from 'pg';
import { parseNatsServers } from '../../libs/config/src/config';
import { repoRoot } from '../../tools/local-services';
import { ProjectorWatch } from './projector-watch';

/**
 * The real apps, built (`npm test` builds first), each test file with its own database and
 * its own stream prefix, so files and runs never see each other's data. The benchmark
 * (bench/) starts its stack with this module too.
 */

// Found from here whether this file runs as TypeScript or compiled (the bench) under dist/.
export const ROOT = repoRoot(__dirname);
const DIST = resolve(ROOT, 'dist', 'apps');
const ADMIN_DB_URL = process.env.SPANLOG_TEST_ADMIN_DB_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const READY_TIMEOUT_MS = 30_000;

export type App = 'api' | 'processor';
/** One running copy of an app: replica 0 is the one every test has; more share its database and streams. */
type Instance = `${App}#${number}`;
const instance = (app: App, replica: number): Instance => `${app}#${replica}`;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Written to its standard input, which is then closed. */
  input?: string;
  /** One still running after this is killed and reported with exit code null. */
  timeoutMs?: number;
}

/** Starts a built entry point (`main`): its process id (to watch it run) and its outcome with its output. */
function startBuilt(
  main: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  { input, timeoutMs }: RunOptions,
): { pid: number; result: Promise<CliResult> } {
  const child = spawn(process.execPath, [main, ...args], { env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input);
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  // 'close', not 'exit': the output pipes may still hold data when the process has exited.
  const result = (once(child, 'close') as Promise<[number | null]>).then(([code]) => {
    clearTimeout(timer);
    return { code, stdout, stderr };
  });
  return { pid: child.pid as number, result };
}

/** Starts the built `spanlog` command: its process id (to watch it run) and its outcome. */
export const startCli = (args: string[], env: NodeJS.ProcessEnv, options: RunOptions = {}) =>
  startBuilt(resolve(DIST, 'cli', 'src', 'main.js'), args, env, options);

/** Runs the built `spanlog` command; resolves with its exit code and output. */
export const runCli = (args: string[], env: NodeJS.ProcessEnv, options: RunOptions = {}): Promise<CliResult> =>
  startCli(args, env, options).result;

/** Runs a built app that is expected to stop by itself (refusing its settings, say), killed after `timeoutMs`. */
export const runApp = (app: App, env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<CliResult> =>
  startBuilt(resolve(DIST, app, 'src', 'main.js'), [], env, { timeoutMs }).result;

/** The lowest port the kernel gives outgoing connections (Linux), or undefined elsewhere. */
function ephemeralPortsFrom(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

const LISTEN_PORTS_FROM = 10_000;

/** Listens on `port` (0: any the kernel picks) and closes again: the port, or null when it is taken. */
async function tryPort(port: number): Promise<number | null> {
  const server = createServer();
  const listening = await new Promise<boolean>((done) => {
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => done(true));
  });
  if (!listening) return null;
  const bound = (server.address() as { port: number }).port;
  await new Promise((closed) => server.close(closed));
  return bound;
}

/** Jest workers (`JEST_WORKER_ID` 1, 2, …) take disjoint slices of the listening range. */
const WORKER_SLICES = 8;
/** The next port this process offers, walking its slice from a random start. */
let nextPort: number | undefined;

/**
 * A port nothing listens on, for a child to bind later. Taken below the ephemeral range where
 * there is room: a port the kernel hands out is free only until the next outgoing connection
 * (a test's Postgres or NATS client) takes it as its local port, which once failed a stack's
 * start with EADDRINUSE. Each jest worker walks a slice of its own, one port after another: two
 * random picks, by two workers or one, could name the same port before either child bound it,
 * which failed a stack's processor with EADDRINUSE on its metrics port.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralPortsFrom();
  const sliceSize = low === undefined ? 0 : Math.floor((low - LISTEN_PORTS_FROM) / WORKER_SLICES);
  if (sliceSize >= 100) {
    const sliceFrom = LISTEN_PORTS_FROM + ((Number(process.env.JEST_WORKER_ID ?? 1) - 1) % WORKER_SLICES) * sliceSize;
    for (let attempt = 0; attempt < 50; attempt++) {
      if (nextPort === undefined || nextPort >= sliceFrom + sliceSize) nextPort = sliceFrom + Math.floor(Math.random() * sliceSize);
      const port = await tryPort(nextPort++);
      if (port !== null) return port;
    }
  }
  const port = await tryPort(0);
  if (port === null) throw new Error('no port to listen on at 127.0.0.1');
  return port;
}

export interface StackOptions {
  /** Names the database (`spanlog_<name>_<id>`) and the stream prefix (`<NAME><id>_`). */
  name?: string;
  /** A URL of the `postgres` database of the server to use: the shared one unless a test brings its own (the fault suite). */
  adminDbUrl?: string;
  /**
   * A URL of the `postgres` database of a streaming replica of `adminDbUrl`'s server: the apps'
   * DATABASE_READ_URL then names the test's database there (it arrives with the replication).
   */
  readReplicaAdminDbUrl?: string;
  /** The NATS server to use (NATS_URL: one, or a comma-separated cluster): the shared one unless a test brings its own. */
  natsUrl?: string;
  /** Keep everything the apps write (for tests that read their logs), not only the last lines. */
  keepOutput?: boolean;
  /**
   * The id of a stack whose database and streams were kept (`bench:stage --keep`): this stack
   * uses them again, with the migrations since applied, instead of new ones.
   */
  reuseId?: string;
}

export class Stack {
  private readonly children = new Map<Instance, ChildProcess>();
  /** The last lines each app wrote, shown when it dies unexpectedly. */
  private readonly output = new Map<Instance, string[]>();
  /** The ports of replicas beyond the first, kept across their restarts. */
  private readonly replicaEnv = new Map<Instance, NodeJS.ProcessEnv>();
  private stopping = false;

  private constructor(
    readonly baseUrl: string,
    /** Where the processor serves its metrics (METRICS_PORT). */
    readonly processorMetricsUrl: string,
    readonly env: NodeJS.ProcessEnv,
    /** A pool, so that queries work again after a test restarted Postgres. */
    readonly db: Pool,
    private readonly dbName: string,
    readonly streamPrefix: string,
    private readonly adminDbUrl: string,
    private readonly natsUrl: string,
    private readonly keepOutput: boolean,
  ) {}

  static async start(
    extraEnv: NodeJS.ProcessEnv = {},
    { name = 'e2e', adminDbUrl = ADMIN_DB_URL, readReplicaAdminDbUrl, natsUrl = NATS_URL, keepOutput = false, reuseId }: StackOptions = {},
  ): Promise<Stack> {
    const id = reuseId ?? randomBytes(5).toString('hex');
    const dbName = `spanlog_${name}_${id}`;
    const inDatabase = (serverUrl: string) => {
      const url = new URL(serverUrl);
      url.pathname = `/${dbName}`;
      return url.toString();
    };
    const dbUrl = inDatabase(adminDbUrl);
    const port = await freePort();
    // Its own, so processors of files running side by side never fight over the default port.
    const metricsPort = await freePort();
    const streamPrefix = `${name.toUpperCase()}${id}_`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      DATABASE_URL: dbUrl,
      ...(readReplicaAdminDbUrl && { DATABASE_READ_URL: inDatabase(readReplicaAdminDbUrl) }),
      NATS_URL: natsUrl,
      SPANLOG_STREAM_PREFIX: streamPrefix,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      JWT_SECRET: randomBytes(32).toString('hex'),
      SPANLOG_SECRET_KEY: randomBytes(32).toString('base64'),
      ...extraEnv,
    };
    // The server the global setup made the migrated template on: a copy of it; any other (the fault suite's): the migrations.
    const template = adminDbUrl === ADMIN_DB_URL && !reuseId ? process.env.SPANLOG_TEST_TEMPLATE_DB : undefined;
    if (template) {
      const admin = new Client({ connectionString: adminDbUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${dbName}" TEMPLATE "${template}"`).finally(() => admin.end());
    } else {
      const migrated = await runCli(['admin', 'migrate', '--json'], env);
      if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
    }
    const db = new Pool({ connectionString: dbUrl, max: 2 });
    // An idle connection ended by a Postgres restart must not crash the test process.
    db.on('error', () => undefined);
    const stack = new Stack(
      `http://127.0.0.1:${port}`,
      `http://127.0.0.1:${env.METRICS_PORT}/metrics`,
      env,
      db,
      dbName,
      streamPrefix,
      adminDbUrl,
      natsUrl,
      keepOutput,
    );
    try {
      await stack.startProcessor();
      await stack.startApi();
    } catch (err) {
      // Whoever called start has no stack to stop: the database and streams go here (never a reused stack's).
      await (reuseId ? stack.stopApps() : stack.stop());
      throw err;
    }
    return stack;
  }

  private get natsServers(): string[] {
    return parseNatsServers(this.natsUrl).servers;
  }

  /** A connection to the stack's NATS (one server or a cluster); the caller closes it. */
  connectNats(): Promise<NatsConnection> {
    return connect({ servers: this.natsServers });
  }

  /** Where API replica `replica` answers: `baseUrl` for the first. */
  apiUrl(replica = 0): string {
    const port = this.replicaEnv.get(instance('api', replica))?.PORT;
    if (replica && !port) throw new Error(`API replica ${replica} was never started`);
    return replica ? `http://127.0.0.1:${port}` : this.baseUrl;
  }

  /** Its own ports for a replica beyond the first (the first has the stack's). */
  private async replicaPorts(app: App, replica: number): Promise<NodeJS.ProcessEnv> {
    if (!replica) return {};
    const key = instance(app, replica);
    if (!this.replicaEnv.has(key)) this.replicaEnv.set(key, { PORT: String(await freePort()), METRICS_PORT: String(await freePort()) });
    return this.replicaEnv.get(key) as NodeJS.ProcessEnv;
  }

  /** Starts API replica `replica` (another on the same database and streams when not 0) and resolves once it is healthy. */
  async startApi(replica = 0): Promise<void> {
    const key = instance('api', replica);
    this.spawn(key, await this.replicaPorts('api', replica));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const ok = await fetch(`${this.apiUrl(replica)}/api/v1/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline || this.children.get(key)?.exitCode !== null) {
        throw new Error(`the API did not become healthy:\n${this.recentOutput('api', replica)}`);
      }
      await sleep(100);
    }
  }

  /**
   * Resolves once the processor's durable consumers exist, i.e. it is consuming; `extraEnv`
   * applies to this start only. A `replica` other than 0 is one more processor sharing them.
   */
  async startProcessor(extraEnv: NodeJS.ProcessEnv = {}, replica = 0): Promise<void> {
    const key = instance('processor', replica);
    this.spawn(key, { ...(await this.replicaPorts('processor', replica)), ...extraEnv });
    const nc = await connect({ servers: this.natsServers });
    try {
      const jsm = await nc.jetstreamManager();
      const deadline = Date.now() + READY_TIMEOUT_MS;
      for (;;) {
        const ready = await jsm.consumers.info(`${this.streamPrefix}INGEST`, `${this.streamPrefix}ingest-projector`).then(
          () => true,
          () => false,
        );
        if (ready) return;
        if (Date.now() > deadline || this.children.get(key)?.exitCode !== null) {
          throw new Error(`the processor did not start consuming:\n${this.recentOutput('processor', replica)}`);
        }
        await sleep(100);
      }
    } finally {
      await nc.close();
    }
  }

  /**
   * Resolves once the telemetry projector has settled every INGEST message stored so far:
   * applied, or dead-lettered after its retries (acknowledged either way, none pending). Only
   * when to look: what was applied is read from the rows or the dead letters.
   */
  async ingestSettled(timeoutMs = 120_000): Promise<void> {
    const nc = await connect({ servers: this.natsServers });
    try {
      const watch = new ProjectorWatch(await nc.jetstreamManager(), this.streamPrefix);
      if (!(await watch.drained(timeoutMs, 200)))
        throw new Error(`INGEST not settled within ${timeoutMs} ms: ${JSON.stringify(await watch.progress())}`);
    } finally {
      await nc.close();
    }
  }

  killApi(signal: NodeJS.Signals = 'SIGTERM', replica = 0): Promise<number | null> {
    return this.kill(instance('api', replica), signal);
  }

  killProcessor(signal: NodeJS.Signals = 'SIGTERM', replica = 0): Promise<number | null> {
    return this.kill(instance('processor', replica), signal);
  }

  /** Stops every app (replicas too) and closes the pool, leaving the database and streams: for servers the test throws away. */
  async stopApps(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.children.keys()].map((key) => this.kill(key, 'SIGTERM')));
    await this.db.end().catch(() => undefined);
  }

  async stop(): Promise<void> {
    await this.stopApps();
    const admin = new Client({ connectionString: this.adminDbUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${this.dbName}" WITH (FORCE)`).finally(() => admin.end());
    const nc = await connect({ servers: this.natsServers });
    try {
      const jsm = await nc.jetstreamManager();
      // Object store buckets live in streams named OBJ_<bucket>.
      for await (const stream of jsm.streams.names()) {
        if (stream.startsWith(this.streamPrefix) || stream.startsWith(`OBJ_${this.streamPrefix}`)) await jsm.streams.delete(stream);
      }
    } finally {
      await nc.close();
    }
  }

  /** The running app's process id (for its memory figures), or null when it is not running. */
  pid(app: App, replica = 0): number | null {
    const child = this.children.get(instance(app, replica));
    return child && child.exitCode === null && child.signalCode === null ? (child.pid ?? null) : null;
  }

  /** What the app wrote lately; everything it wrote since it started when the stack keeps output. */
  recentOutput(app: App, replica = 0): string {
    return (this.output.get(instance(app, replica)) ?? []).join('');
  }

  private spawn(key: Instance, extraEnv: NodeJS.ProcessEnv = {}): void {
    const app = key.split('#')[0] as App;
    const child = spawn(process.execPath, [resolve(DIST, app, 'src', 'main.js')], {
      env: { ...this.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    this.output.set(key, lines);
    const keep = (d: Buffer) => {
      lines.push(d.toString());
      if (!this.keepOutput && lines.length > 200) lines.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code, signal) => {
      if (!this.stopping && this.children.get(key) === child && code !== 0 && signal === null) {
        process.stderr.write(`spanlog ${key} exited with code ${code}:\n${lines.join('')}\n`);
      }
    });
    this.children.set(key, child);
  }

  private async kill(key: Instance, signal: NodeJS.Signals): Promise<number | null> {
    const child = this.children.get(key);
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = once(child, 'exit') as Promise<[number | null]>;
    child.kill(signal);
    // A graceful stop finishes requests in flight and drains NATS, which a loaded machine can stretch well past 15 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code] = await exited;
    clearTimeout(timer);
    return code;
  }
}

export const startStack = (extraEnv?: NodeJS.ProcessEnv): Promise<Stack> => Stack.start(extraEnv);

/**
 * For files that make many organizations, projects and keys as fixtures of other tests: the
 * per-user creation rate and the Free organizations per user off, as a self-hosted install
 * may set them (test/limits.e2e-spec.ts tests them).
 */
export const UNLIMITED_CREATIONS: NodeJS.ProcessEnv = { SPANLOG_CREATIONS_PER_MINUTE: '0', SPANLOG_MAX_FREE_ORGS_PER_USER: '0' };
