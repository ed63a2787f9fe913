import { HttpException } from '@nestjs/common';
import { DomainError, type ErrorCode, serviceUnavailable } from '@app/domain';
import { isStoreUnavailable } from '@app/persistence';

export interface ErrorResponse {
  status: number;
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_UNAVAILABLE',
};

/** Fastify's own errors (body parsing, limits) by their code, with messages a client can act on. */
const FASTIFY_ERRORS: Record<string, (err: Error) => Omit<ErrorResponse, 'headers'>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => ({
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: 'request body exceeds the size limit of this endpoint',
  }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => ({
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message:
      'Content-Type must be application/json: JSON is required, protobuf is not supported (OTLP exporters: use the http/json protocol)',
  }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => ({ status: 400, code: 'VALIDATION_ERROR', message: 'Content-Length does not match the body' }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => ({ status: 400, code: 'VALIDATION_ERROR', message: 'body is empty' }),
  FST_ERR_CTP_INVALID_TYPE: () => ({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type is not valid' }),
};

function messageOf(err: HttpException): string {
  const response = err.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : err.message;
}

function fastifyErrorResponse(err: unknown): ErrorResponse | null {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== 'string' || !Object.hasOwn(FASTIFY_ERRORS, code)) return null;
  return { ...FASTIFY_ERRORS[code](err as Error), headers: {} };
}

/** Maps any thrown value to SPEC 7.2's code, status and message; null for an unexpected error (500). */
export function toErrorResponse(err: unknown): ErrorResponse | null {
  if (err instanceof DomainError) return { status: err.status, code: err.code, message: err.message, headers: err.headers };
  // Any route that reads Postgres (the API-key guard on every request) fails this way while it restarts: retryable.
  if (isStoreUnavailable(err)) return toErrorResponse(serviceUnavailable('the database is unavailable; retry it'));
  // Nest hands Fastify's own 4xx errors over wrapped in an HttpException; the cause says which.
  const fastify = fastifyErrorResponse(err instanceof HttpException ? err.cause : err);
  if (fastify) return fastify;
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = CODE_BY_STATUS[status];
    if (code) return { status, code, message: messageOf(err), headers: {} };
    return null;
  }
  const statusCode = (err as { statusCode?: number })?.statusCode;
  if (statusCode && statusCode >= 400 && statusCode < 500 && CODE_BY_STATUS[statusCode]) {
    return { status: statusCode, code: CODE_BY_STATUS[statusCode], message: (err as Error).message, headers: {} };
  }
  return null;
}

/** What a client is told of an unexpected error: none of its internals, only the request id that its log line carries. */
export const internalErrorMessage = (requestId: string | undefined): string =>
  requestId === undefined ? 'internal error; retry with backoff' : `internal error (request id ${requestId}); retry with backoff`;

/** Auth endpoints answer in the `{data, error}` envelope (SPEC 4.9–4.11, 7.2). */
export const usesDataEnvelope = (url: string): boolean => url.startsWith('/api/v1/auth/');

export function errorBody(url: string, code: string, message: string): object {
  return usesDataEnvelope(url) ? { data: null, error: { code, message } } : { error: { code, message } };
}
