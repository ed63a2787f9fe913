import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type Server, createServer } from 'node:net';
import { resolve } from 'node:path';
import { type PortUse, portFree, portTakenLine } from '../tools/ports';
import { supervise } from '../tools/supervise';
import { ROOT, type Stack, freePort, startStack } from './support/stack';

// `npm start` with a port taken (issue 26): one line naming the port and its variable, and the
// API and the processor stop together.

const occupy = async (port: number): Promise<Server> => {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
};

/** `node dist/tools/start.js` (what `npm start` runs once built) with `env`: its exit code and standard error. */
const start = async (env: NodeJS.ProcessEnv) => {
  const child = spawn(process.execPath, [resolve(ROOT, 'dist', 'tools', 'start.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
};

describe('npm start with a port taken', () => {
  const api = (port: number): PortUse => ({ port, host: '127.0.0.1', owner: 'the API', variable: 'PORT' });
  const metrics = (port: number): PortUse => ({
    port,
    host: '127.0.0.1',
    owner: "the processor's metrics",
    variable: 'METRICS_PORT',
    hint: '(or 0 to serve no metrics)',
  });

  it('says in one line which port is taken and which variable moves it, before it starts anything', async () => {
    const [taken, free] = [await freePort(), await freePort()];
    const server = await occupy(taken);
    try {
      // No database answers there: the port is checked first, so nothing waits on Postgres.
      const base = { HOST: '127.0.0.1', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', NATS_URL: 'nats://127.0.0.1:1' };
      const byApi = await start({ ...base, PORT: String(taken), METRICS_PORT: String(free) });
      expect(byApi).toEqual({ code: 1, stderr: `spanlog: ${portTakenLine(api(taken))}\n` });
      const byMetrics = await start({ ...base, PORT: String(free), METRICS_PORT: String(taken) });
      expect(byMetrics).toEqual({ code: 1, stderr: `spanlog: ${portTakenLine(metrics(taken))}\n` });
      expect(byMetrics.stderr).toContain('METRICS_PORT');
    } finally {
      server.close();
    }
  }, 60_000);

  describe('while the apps start', () => {
    let stack: Stack;
    beforeAll(async () => {
      // A migrated database and streams of its own; its apps stopped, for the supervisor to run them.
      stack = await startStack();
      await stack.stopApps();
    }, 120_000);
    afterAll(() => stack?.stop());

    it('stops the API when the processor cannot take its metrics port, saying why in one line', async () => {
      const taken = await freePort();
      const server = await occupy(taken);
      const lines: string[] = [];
      try {
        const env: NodeJS.ProcessEnv = { ...stack.env, METRICS_PORT: String(taken) };
        const app = (name: string, dir: string) => ({
          name,
          command: process.execPath,
          args: [resolve(ROOT, 'dist', 'apps', dir, 'src', 'main.js')],
          env,
        });
        // Resolves once both have exited.
        const code = await supervise(
          [app('the API', 'api'), app('the processor', 'processor')],
          [api(Number(env.PORT)), metrics(taken)],
          (line) => lines.push(line),
        );
        expect(code).toBe(1);
        expect(lines).toEqual([`${portTakenLine(metrics(taken))}; stopping the API too`]);
        expect(await portFree(Number(env.PORT), '127.0.0.1')).toBe(true);
      } finally {
        server.close();
      }
    }, 90_000);
  });
});
