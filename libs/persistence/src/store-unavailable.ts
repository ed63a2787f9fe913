/**
 * Whether an error says Postgres cannot serve right now (down, restarting, refusing or
 * dropping connections) rather than that a query is wrong. Such a failure is retryable:
 * the API answers 503 with Retry-After for it, never 500.
 */

/** Socket errors of the driver: nothing listens, or the connection broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or not ready: class 08 (connection exception),
 * admin/crash shutdown and "starting up / shutting down" (57P01–57P03), too many connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** pg's own errors carry no code, only these messages. */
const DRIVER_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

export const isStoreUnavailable = (err: unknown): boolean => unavailable(err, 0);

function unavailable(err: unknown, depth: number): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const { code, message, driverError, cause } = err as ErrorLike;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.some((m) => message.startsWith(m))) return true;
  // TypeORM wraps the driver's error, and so may whoever rethrows it.
  return unavailable(driverError, depth + 1) || unavailable(cause, depth + 1);
}
