import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { type AppConfig, LOGGER, PinoNestLogger, loadConfig } from '@app/config';
import { AppModule } from './app.module';
import { FieldDtoPipe } from './http/client-input';
import { closeConnectionsWhenDraining } from './http/close-when-draining';
import { AllExceptionsFilter } from './http/error-handling';
import { registerJsonParser } from './http/json-body-parser';
import { registerOversizedBodyAnswer } from './http/oversized-body';
import { registerRequestDecompression } from './http/request-decompression';
import { httpServerOptions } from './http/server-options';
import { METRICS_PATH, registerRequestMetrics, routeOf } from './metrics/request-metrics';
import { mountRpc } from './rpc/mount-rpc';
import { serveDashboard } from './web/serve-dashboard';

/** Builds the API application (not yet listening): shared by main.ts and in-process tests. */
export async function createApiApp(config: AppConfig = loadConfig()): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter(httpServerOptions(config));
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, { bodyParser: false, bufferLogs: true });
  const logger = app.get<Logger>(LOGGER);
  app.useLogger(new PinoNestLogger(logger));
  app.useGlobalPipes(new FieldDtoPipe());
  app.useGlobalFilters(new AllExceptionsFilter(logger));

  const fastify = app.getHttpAdapter().getInstance();
  closeConnectionsWhenDraining(fastify);
  registerJsonParser(fastify);
  await registerRequestDecompression(fastify);
  registerOversizedBodyAnswer(fastify);
  await mountRpc(app);
  await serveDashboard(fastify, logger);
  fastify.addHook('onSend', async (req, reply) => {
    void reply.header('X-Request-Id', req.id);
  });
  registerRequestMetrics(fastify);
  fastify.addHook('onResponse', async (req, reply) => {
    // A scrape every few seconds would drown the requests worth reading.
    if (routeOf(req) === METRICS_PATH) return;
    logger.info(
      { reqId: req.id, method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
  return app;
}
