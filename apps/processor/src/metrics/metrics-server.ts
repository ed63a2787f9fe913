import { type Server, createServer } from 'node:http';
import { once } from 'node:events';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import { scrape } from '@app/metrics';

const METRICS_PATH = '/metrics';

/**
 * The processor has no HTTP server of its own, so Prometheus scrapes it on `METRICS_PORT`
 * (on HOST), at `/metrics` and nowhere else. A port already taken stops the start, as the
 * API's would: a processor nobody can scrape should not pass for a healthy one.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | null = null;

  constructor(
    private readonly registry: Registry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { metricsPort: port, host } = this.config;
    if (port === null) return;
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://metrics').pathname;
      if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`only GET ${METRICS_PATH} is served here\n`);
        return;
      }
      scrape(this.registry).then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(req.method === 'HEAD' ? undefined : body),
        (err: unknown) => {
          this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'metrics scrape failed');
          res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n');
        },
      );
    });
    server.listen(port, host);
    try {
      await once(server, 'listening');
    } catch (err) {
      throw new Error(`cannot serve metrics on METRICS_PORT ${port} (HOST ${host}): ${(err as Error).message}`);
    }
    this.server = server;
    this.logger.info(`metrics on http://${host}:${port}${METRICS_PATH}`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.server) return;
    const closed = once(this.server, 'close');
    this.server.close();
    // A scraper keeps its connection alive between scrapes; close would wait for it to give up.
    this.server.closeAllConnections();
    await closed;
  }
}
