import { TRPCError } from '@trpc/server';
import { DomainError, type ErrorCode, serviceUnavailable } from '@app/domain';
import { isStoreUnavailable } from '@app/persistence';
import { internalErrorMessage } from '../http/error-response';

/** The tRPC code of a domain error; tRPC derives the HTTP status from it (CONTRACT: 401, 403, 404, 400). */
export function trpcCodeOf(code: ErrorCode): TRPCError['code'] {
  switch (code) {
    case 'VALIDATION_ERROR':
      return 'BAD_REQUEST';
    case 'UNAUTHORIZED':
      return 'UNAUTHORIZED';
    case 'FORBIDDEN':
    case 'QUOTA_EXCEEDED':
      return 'FORBIDDEN';
    case 'NOT_FOUND':
      return 'NOT_FOUND';
    case 'PAYLOAD_TOO_LARGE':
      return 'PAYLOAD_TOO_LARGE';
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 'RATE_LIMIT_EXCEEDED':
    case 'RATE_LIMITED':
      return 'TOO_MANY_REQUESTS';
    case 'INTERNAL_ERROR':
      return 'INTERNAL_SERVER_ERROR';
    case 'SERVICE_UNAVAILABLE':
    case 'NOT_YET_VISIBLE':
      return 'SERVICE_UNAVAILABLE';
  }
}

/**
 * A domain error in tRPC's terms, message kept; Postgres being unreachable is a 503 as on
 * REST; anything else unchanged (tRPC answers 500).
 */
export function toTrpcError(err: unknown): unknown {
  const domain = isStoreUnavailable(err) ? serviceUnavailable('the database is unavailable; retry it') : err;
  return domain instanceof DomainError ? new TRPCError({ code: trpcCodeOf(domain.code), message: domain.message, cause: domain }) : err;
}

/**
 * tRPC's errorFormatter, the one shape of every RPC error: an internal error shows a generic
 * message with the request id, never its own (a raw Postgres message names tables, columns
 * and encodings); `onError` in mount-rpc.ts logs the real one under that id. Without a
 * context (a request tRPC could not read) there is no id to give.
 */
export function formatRpcError<Shape extends { message: string }>({
  shape,
  error,
  ctx,
}: {
  shape: Shape;
  error: TRPCError;
  ctx?: { requestId: string };
}): Shape {
  return error.code === 'INTERNAL_SERVER_ERROR' ? { ...shape, message: internalErrorMessage(ctx?.requestId) } : shape;
}
