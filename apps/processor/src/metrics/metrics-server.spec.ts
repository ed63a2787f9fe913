import { once } from 'node:events';
import { createServer } from 'node:net';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import type { AppConfig } from '@app/config';
import { MetricsServer } from './metrics-server';

describe(MetricsServer.name, () => {
  const logger = pino({ level: 'silent' });
  const registry = new Registry();
  new Counter({ name: 'spanlog_test_total', help: 'a test counter', registers: [registry] }).inc(3);
  const server = (metricsPort: number | null) => new MetricsServer(registry, { metricsPort, host: '127.0.0.1' } as AppConfig, logger);

  async function takenPort(): Promise<{ port: number; release: () => void }> {
    const holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    return { port: (holder.address() as { port: number }).port, release: () => holder.close() };
  }

  it('serves the registry at /metrics and nothing else, and lets go of the port on shutdown', async () => {
    const { port, release } = await takenPort();
    release();
    const metrics = server(port);
    await metrics.onApplicationBootstrap();
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.headers.get('content-type')).toBe(registry.contentType);
      expect(await res.text()).toContain('spanlog_test_total 3');
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await metrics.onApplicationShutdown();
    }
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('stops the start with a message naming METRICS_PORT when the port is taken', async () => {
    const { port, release } = await takenPort();
    try {
      await expect(server(port).onApplicationBootstrap()).rejects.toThrow(
        `cannot serve metrics on METRICS_PORT ${port} (HOST 127.0.0.1): listen EADDRINUSE`,
      );
    } finally {
      release();
    }
  });
});
