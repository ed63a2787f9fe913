import 'reflect-metadata';
import { setPriority } from 'node:os';
import { NestFactory } from '@nestjs/core';
import type { Logger } from 'pino';
import { APP_CONFIG, type AppConfig, LOGGER, PinoNestLogger, privateNetworkWarning } from '@app/config';
import { ProcessorModule } from './processor.module';

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ProcessorModule, { bufferLogs: true });
  const logger = app.get<Logger>(LOGGER);
  app.useLogger(new PinoNestLogger(logger));
  await app.init();
  const config = app.get<AppConfig>(APP_CONFIG);
  const { processorNice } = config;
  try {
    setPriority(processorNice);
  } catch (err) {
    logger.warn({ err: String(err), processorNice }, 'could not lower the processor priority; it competes with the API as an equal');
  }
  logger.info({ nice: processorNice }, 'processor started');
  // The processor is what calls the webhooks: said here too for replicas started without `npm start`.
  const warning = privateNetworkWarning(config);
  if (warning) logger.warn(warning);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // The shutdown hooks stop fetching, commit and ack the batches in hand, then close NATS and Postgres.
    logger.info({ signal }, 'stopping: finishing the batches in hand');
    await app.close();
    logger.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stop(signal));
}

main().catch((err: unknown) => {
  process.stderr.write(`spanlog processor failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
