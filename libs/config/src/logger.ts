import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import type { LogLevel } from './config';

export const REDACTED = '[REDACTED]';

/**
 * Query parameters whose value is a credential, by a fragment of their name (`api_key`,
 * `apiKey`, `access_token`, `password`, `client_secret`, `Authorization`…). `input` is tRPC's
 * query input, which may hold anything a mutation takes, evaluator headers included.
 */
const CREDENTIAL_PARAM = /key|token|secret|passw|pwd|auth|credential|signature|^sig$|^input$/i;

/**
 * The URL with the value of every credential-looking query parameter replaced: clients do
 * send API keys in query strings, and the request log must not keep them. A parameter whose
 * name cannot be decoded is redacted too, rather than guessed at.
 */
export function redactUrl(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=');
      const rawName = eq < 0 ? param : param.slice(0, eq);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        return `${rawName}=${REDACTED}`;
      }
      return CREDENTIAL_PARAM.test(name) && eq >= 0 ? `${rawName}=${REDACTED}` : param;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

export interface LoggedError {
  type: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: LoggedError | string;
}

const MAX_CAUSE_DEPTH = 3;

/**
 * An error as it may be logged: its type, message, code and stack, and its cause the same
 * way; nothing else. Driver errors carry what they were given: TypeORM's QueryFailedError
 * holds the statement's `parameters` (an evaluator's Authorization header, say) and pg's
 * `detail` and `where` quote row values ("Failing row contains (…)"), so no other property
 * of an error is ever written to a log.
 */
export function loggableError(err: unknown, depth = 0): LoggedError | string {
  if (!(err instanceof Error)) return typeof err === 'string' ? err : `non-error value of type ${typeof err}`;
  const logged: LoggedError = { type: err.name, message: err.message };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') logged.code = String(code);
  if (err.stack) logged.stack = err.stack;
  if (err.cause !== undefined && depth < MAX_CAUSE_DEPTH) logged.cause = loggableError(err.cause, depth + 1);
  return logged;
}

/** Fields that hold credentials wherever a log line might carry them, as a last line of defence. */
const REDACT_PATHS = [
  'password',
  '*.password',
  'apiKey',
  '*.apiKey',
  'refresh_token',
  '*.refresh_token',
  'access_token',
  '*.access_token',
  'headers.authorization',
  '*.headers.authorization',
  'headers.Authorization',
  '*.headers.Authorization',
];

/** Structured JSON logs on stdout; one logger per process, children per component. */
export function createLogger(name: string, level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    base: { app: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: loggableError, url: redactUrl },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
  };
  return destination ? pino(options, destination) : pino(options);
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
