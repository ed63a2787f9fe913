/** Every error code a client can see (SPEC 7.2, CONTRACT "General"), with its HTTP status. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  QUOTA_EXCEEDED: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMIT_EXCEEDED: 429,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  NOT_YET_VISIBLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A failure with a client-facing code; the API's error filter turns it into SPEC 7.2's body. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers, e.g. Retry-After on 503. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const validationError = (message: string) => new DomainError('VALIDATION_ERROR', message);
export const notFound = (message: string) => new DomainError('NOT_FOUND', message);
export const serviceUnavailable = (message: string, retryAfterSeconds = 1) =>
  new DomainError('SERVICE_UNAVAILABLE', message, { 'Retry-After': String(retryAfterSeconds) });
