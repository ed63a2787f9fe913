import 'reflect-metadata';
import type { Logger } from 'pino';
import { LOGGER, loadConfig } from '@app/config';
import { createApiApp } from './app.factory';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApiApp(config);
  const logger = app.get<Logger>(LOGGER);
  await app.listen({ port: config.port, host: config.host });
  logger.info(`listening on http://${config.host}:${config.port}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new connections, finishing in-flight requests');
    // The HTTP server first, so requests in flight still have Postgres and NATS; then the rest.
    await app.getHttpAdapter().getInstance().close();
    await app.close();
    logger.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stop(signal));
}

main().catch((err: unknown) => {
  process.stderr.write(`spanlog api failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
