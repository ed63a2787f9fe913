import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type App, ROOT, type Stack, freePort } from './stack';

const READY_TIMEOUT_MS = 30_000;

/**
 * One more API or processor beside a stack's own, on the stack's database and stream prefix
 * with ports of its own: replicas as a deployment runs them (docs/ARCHITECTURE.md "Replicas").
 * Stop every replica a test started before stopping its stack.
 */
export class Replica {
  private readonly lines: string[] = [];

  private constructor(
    readonly app: App,
    private readonly child: ChildProcess,
    /** The API's base URL (an API replica). */
    readonly baseUrl: string,
    /** Where the processor serves its metrics (a processor replica). */
    readonly metricsUrl: string,
  ) {
    const keep = (d: Buffer) => {
      this.lines.push(d.toString());
      if (this.lines.length > 200) this.lines.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /** Resolves once the API answers its health check, or the processor its metrics. */
  static async start(stack: Stack, app: App, extraEnv: NodeJS.ProcessEnv = {}): Promise<Replica> {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [resolve(ROOT, 'dist', 'apps', app, 'src', 'main.js')], {
      env: { ...stack.env, PORT: String(port), METRICS_PORT: String(metricsPort), ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const replica = new Replica(app, child, `http://127.0.0.1:${port}`, `http://127.0.0.1:${metricsPort}/metrics`);
    const probe = app === 'api' ? `${replica.baseUrl}/api/v1/health` : replica.metricsUrl;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const ok = await fetch(probe).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return replica;
      if (Date.now() > deadline || child.exitCode !== null) {
        await replica.stop('SIGKILL');
        throw new Error(`the ${app} replica did not start:\n${replica.recentOutput()}`);
      }
      await sleep(100);
    }
  }

  /** Whether the process still runs. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    const exited = once(this.child, 'exit');
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }

  recentOutput(): string {
    return this.lines.join('');
  }
}
