import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { freePort } from './stack';
import { postgresAnswers } from './postgres-answers';

/**
 * A Postgres primary and a streaming replica of it, both the test's own (never the shared
 * server, whose configuration tests leave alone), on free loopback ports with their data in one
 * temporary folder; `dispose` stops both and removes the folder, whatever state they are in.
 */

const READY_TIMEOUT_MS = 30_000;
const NEEDED = ['initdb', 'postgres', 'pg_basebackup'];

/** The newest /usr/lib/postgresql/<v>/bin holding every binary the pair needs. */
function postgresBin(): string | null {
  if (!existsSync('/usr/lib/postgresql')) return null;
  const dirs = readdirSync('/usr/lib/postgresql')
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join('/usr/lib/postgresql', version, 'bin'));
  return dirs.find((dir) => NEEDED.every((binary) => existsSync(join(dir, binary)))) ?? null;
}

/** Postgres refuses to run as root: as root, the pair runs as the `postgres` account. */
function postgresAccount(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Why the pair cannot run here (one line for a skipped test), or null when it can. */
export function replicaPairUnavailable(): string | null {
  if (!postgresBin()) return `no /usr/lib/postgresql/*/bin with ${NEEDED.join(', ')} (apt-get install postgresql)`;
  if (process.getuid?.() === 0) {
    if (!existsSync('/usr/bin/setpriv')) return 'running as root needs setpriv (util-linux) to run Postgres as the postgres account';
    try {
      postgresAccount();
    } catch {
      return 'running as root needs a postgres account to run Postgres as';
    }
  }
  return null;
}

class Server {
  private output: string[] = [];

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    const keep = (d: Buffer) => {
      this.output.push(d.toString());
      if (this.output.length > 100) this.output.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  async waitUntilAnswering(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await this.answers())) {
      if (this.exited || Date.now() > deadline) throw new Error(`${this.name} did not become ready:\n${this.output.join('')}`);
      await sleep(100);
    }
  }

  /** Fast shutdown (SIGINT), then SIGKILL if it lingers. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  private answers(): Promise<boolean> {
    return postgresAnswers(this.adminUrl);
  }
}

export class PostgresReplicaPair {
  private constructor(
    private readonly dir: string,
    readonly primary: Server,
    readonly replica: Server,
  ) {}

  /** initdb a primary (its defaults already stream: wal_level replica, trust for replication on loopback), clone it with pg_basebackup -R, start both. */
  static async start(): Promise<PostgresReplicaPair> {
    const bin = postgresBin();
    if (!bin) throw new Error(replicaPairUnavailable() ?? 'no Postgres binaries');
    const account = postgresAccount();
    // setpriv execs the binary itself, so a signal sent to the child reaches postgres.
    const as = (command: string[]) =>
      account ? ['setpriv', `--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', ...command] : command;
    const run = (command: string[]) => execFileSync(command[0], command.slice(1), { stdio: 'pipe' });
    const dir = mkdtempSync(join(tmpdir(), 'spanlog-replica-'));
    const servers: Server[] = [];
    try {
      if (account) chownSync(dir, account.uid, account.gid);
      const serve = async (name: string, data: string): Promise<Server> => {
        const port = await freePort();
        const [cmd, ...args] = as([
          join(bin, 'postgres'),
          ...['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
        ]);
        const server = new Server(name, spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }), port);
        servers.push(server);
        await server.waitUntilAnswering();
        return server;
      };
      run(as([join(bin, 'initdb'), '-D', join(dir, 'primary'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']));
      const primary = await serve('primary', join(dir, 'primary'));
      run(
        as([
          join(bin, 'pg_basebackup'),
          ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', join(dir, 'replica'), '-R', '--no-sync'],
        ]),
      );
      const replica = await serve('replica', join(dir, 'replica'));
      return new PostgresReplicaPair(dir, primary, replica);
    } catch (err) {
      await Promise.all(servers.map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Makes the replica apply each transaction `ms` after its commit on the primary (it still
   * receives it at once), so a test sees the replica behind; resolves once the setting holds.
   */
  async delayReplay(ms: number): Promise<void> {
    appendFileSync(join(this.dir, 'replica', 'postgresql.auto.conf'), `recovery_min_apply_delay = '${ms}ms'\n`);
    const client = new Client({ connectionString: this.replica.adminUrl });
    await client.connect();
    try {
      await client.query('SELECT pg_reload_conf()');
      for (let i = 0; ; i++) {
        const [{ recovery_min_apply_delay: now }] = (await client.query('SHOW recovery_min_apply_delay')).rows;
        if (now === `${ms}ms` || (ms % 1000 === 0 && now === `${ms / 1000}s`)) return;
        if (i > 100) throw new Error(`the replica's recovery_min_apply_delay stayed ${now}`);
        await sleep(50);
      }
    } finally {
      await client.end();
    }
  }

  /** Stops both servers and removes their data. */
  async dispose(): Promise<void> {
    await Promise.all([this.replica.stop(), this.primary.stop()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
