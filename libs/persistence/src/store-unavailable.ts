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

/** A deadlock the server broke by failing this transaction, or a serialization failure: the same work may succeed when run again. */
const CONFLICT_SQLSTATE = /^(40P01|40001)$/;

export const isStoreUnavailable = (err: unknown): boolean =>
  someCause(
    err,
    ({ code, message }) =>
      (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) ||
      (typeof message === 'string' && DRIVER_MESSAGES.some((m) => message.startsWith(m))),
  );

/** Whether a transaction failed only for meeting another one (deadlock, serialization): worth running again as it is. */
export const isTransactionConflict = (err: unknown): boolean =>
  someCause(err, ({ code }) => typeof code === 'string' && CONFLICT_SQLSTATE.test(code));

function someCause(err: unknown, test: (e: ErrorLike) => boolean, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const e = err as ErrorLike;
  if (test(e)) return true;
  // TypeORM wraps the driver's error, and so may whoever rethrows it.
  return someCause(e.driverError, test, depth + 1) || someCause(e.cause, test, depth + 1);
}
