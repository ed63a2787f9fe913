import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundException } from '@nestjs/common';
import { MAX_PATH_SEGMENT_LENGTH } from '@app/domain';
import type { ErrorResponse } from './error-response';

/**
 * What is refused before any route runs, in SPEC 7.2's body like every other error. CONTRACT
 * has no code of their own for 408, 414 and 431: they carry VALIDATION_ERROR, the code of a
 * request at fault, and keep their status. No message repeats the URL or a header: a URL may
 * hold a key or a token in its query, and this is the answer to whoever sent it, or to a page
 * showing it.
 */
const body = (message: string) => JSON.stringify({ error: { code: 'VALIDATION_ERROR', message } });

const URL_TOO_LONG = 'the URL is too long: a path segment is longer than the server takes';

/** Fastify's `frameworkErrors`: a URL the router cannot take (a path segment over its limit, malformed percent-encoding). */
export function answerRouterError(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const [status, message] =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [414, URL_TOO_LONG]
      : err.code === 'FST_ERR_BAD_URL'
        ? [400, 'the URL is not valid: a path segment is not correctly percent-encoded']
        : [err.statusCode ?? 400, 'the URL cannot be routed'];
  void reply.code(status).type('application/json; charset=utf-8').send(body(message));
}

/**
 * Nest's answer to a request no route takes is `Cannot GET <url>`, the URL repeated. Ours is
 * 404 naming the method only, or 414 when a path segment is over MAX_PATH_SEGMENT_LENGTH: the
 * router then falls back to the dashboard's catch-all route, which hands `/api/...` paths to
 * the not-found handler, instead of calling `frameworkErrors`.
 */
export function noRouteResponse(err: unknown, req: Pick<FastifyRequest, 'method' | 'url'>): ErrorResponse | null {
  if (!(err instanceof NotFoundException) || err.message !== `Cannot ${req.method} ${req.url}`) return null;
  const path = req.url.split('?', 1)[0];
  if (path.split('/').some((segment) => segment.length > MAX_PATH_SEGMENT_LENGTH)) {
    return { status: 414, code: 'VALIDATION_ERROR', message: URL_TOO_LONG, headers: {} };
  }
  return { status: 404, code: 'NOT_FOUND', message: `no route answers ${req.method} on this path`, headers: {} };
}

/** Node's HTTP parser refusals, answered on the socket as Fastify's default does, in our body. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'request headers are too large: at most 16 KB in all'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request was not received in time'],
};

/** Fastify's `clientErrorHandler`. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'the request is not valid HTTP'];
  if (socket.writable) {
    const text = body(message);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(err);
}
