import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type NatsConnection, connect } from 'nats';
import { ServerProcess, findNatsServer } from '../faults/services';
import { freePort } from '../support/stack';

/**
 * A JetStream cluster of `nats-server` processes on loopback, each with its own client,
 * route and monitoring port and its own store in one temporary folder: members can be
 * killed and started again with the same name and data, as a crashed machine comes back.
 */

const READY_TIMEOUT_MS = 30_000;
const CLUSTER_NAME = 'spanlog-test';

interface Member {
  name: string;
  clientPort: number;
  monitorPort: number;
  server: ServerProcess;
}

interface Jsz {
  meta_cluster?: { leader?: string; cluster_size?: number; replicas?: { name: string; current: boolean }[] };
}

export class NatsCluster {
  private constructor(
    private readonly dir: string,
    private readonly members: Member[],
  ) {}

  /** `NATS_URL` for the apps: every member's client URL, comma-separated. */
  get url(): string {
    return this.members.map((m) => `nats://127.0.0.1:${m.clientPort}`).join(',');
  }

  get servers(): string[] {
    return this.members.map((m) => `nats://127.0.0.1:${m.clientPort}`);
  }

  /** Starts `size` members routed to each other and resolves once they have elected a JetStream meta leader. */
  static async start(size = 3): Promise<NatsCluster> {
    const binary = findNatsServer();
    const dir = mkdtempSync(join(tmpdir(), 'spanlog-cluster-'));
    const ports = await Promise.all(
      Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort(), monitor: await freePort() })),
    );
    const routes = ports.map((p) => `nats://127.0.0.1:${p.route}`).join(',');
    const members = ports.map(({ client, route, monitor }, i) => {
      const name = `n${i + 1}`;
      const command = [
        binary,
        ...['-a', '127.0.0.1', '-p', String(client), '-m', String(monitor), '-n', name, '-js', '-sd', join(dir, name)],
        ...['--cluster_name', CLUSTER_NAME, '--cluster', `nats://127.0.0.1:${route}`, '--routes', routes],
      ];
      return { name, clientPort: client, monitorPort: monitor, server: new ServerProcess(name, command) };
    });
    const cluster = new NatsCluster(dir, members);
    try {
      for (const m of members) m.server.spawn();
      await cluster.metaLeaderElected();
      return cluster;
    } catch (err) {
      await cluster.dispose();
      throw err;
    }
  }

  /** Resolves once a member names the meta leader and sees every peer current: streams of `size` replicas can be placed. */
  async metaLeaderElected(timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const views = await Promise.all(this.members.filter((m) => !m.server.exited).map((m) => this.jsz(m)));
      const ready = views.some(
        (v) =>
          v?.meta_cluster?.leader &&
          v.meta_cluster.cluster_size === this.members.length &&
          (v.meta_cluster.replicas ?? []).filter((r) => r.current).length === this.members.length - 1,
      );
      if (ready) return;
      if (Date.now() > deadline)
        throw new Error(`the cluster elected no JetStream meta leader in ${timeoutMs} ms: ${JSON.stringify(views)}`);
      await sleep(100);
    }
  }

  private async jsz(m: Member): Promise<Jsz | null> {
    return fetch(`http://127.0.0.1:${m.monitorPort}/jsz`, { signal: AbortSignal.timeout(1_000) }).then(
      (r) => r.json() as Promise<Jsz>,
      () => null,
    );
  }

  /** The members' server names (`-n`), as JetStream names a stream's leader and replicas. */
  get names(): string[] {
    return this.members.map((m) => m.name);
  }

  /** Whether member `name` is not running (killed and not started again). */
  stopped(name: string): boolean {
    return this.member(name).server.exited;
  }

  /** A connection to whichever members answer, `except` one (so that killing it does not cut the connection). */
  connect(except?: string): Promise<NatsConnection> {
    const servers = this.members.filter((m) => m.name !== except).map((m) => `nats://127.0.0.1:${m.clientPort}`);
    return connect({ servers, timeout: 5_000 });
  }

  /** Kills member `name` as a crash would (SIGKILL): what it acknowledged is on disk. */
  kill(name: string): Promise<void> {
    return this.member(name).server.stop('SIGKILL');
  }

  /** Starts member `name` again with its data, and resolves once it serves clients. */
  async restart(name: string): Promise<void> {
    const m = this.member(name);
    m.server.spawn();
    await m.server.waitUntil(async () => (await this.jsz(m)) !== null);
  }

  private member(name: string): Member {
    const m = this.members.find((x) => x.name === name);
    if (!m) throw new Error(`no cluster member ${name}`);
    return m;
  }

  /** Stops every member and removes their stores, whatever state they are in. */
  async dispose(): Promise<void> {
    await Promise.all(this.members.map((m) => m.server.stop('SIGTERM')));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
