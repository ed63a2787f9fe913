import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { Logger } from 'pino';
import { LOGGER, PinoNestLogger } from '@app/config';
import { ProcessorModule } from './processor.module';

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ProcessorModule, { bufferLogs: true });
  const logger = app.get<Logger>(LOGGER);
  app.useLogger(new PinoNestLogger(logger));
  // SIGTERM: stop fetching, finish and ack the batch in hand, close connections, exit.
  app.enableShutdownHooks();
  await app.init();
  logger.info('processor started');
}

main().catch((err: unknown) => {
  process.stderr.write(`spanlog processor failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
