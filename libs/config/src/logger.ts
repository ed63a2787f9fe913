import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import type { LogLevel } from './config';

/** Structured JSON logs on stdout; one logger per process, children per component. */
export function createLogger(name: string, level: LogLevel): Logger {
  return pino({ name, level, base: { app: name }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** Routes Nest's own log lines into the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, stack?: string, context?: string) {
    this.logger.error({ context, stack }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
