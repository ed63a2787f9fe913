import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { errorBody, internalErrorMessage, toErrorResponse } from './error-response';
import { noRouteResponse } from './protocol-errors';

/**
 * Sends every error in SPEC 7.2's shape. Unexpected errors are logged with the request id,
 * which the 500 body carries so an operator can find the log line.
 */
export function sendError(logger: Logger, err: unknown, req: FastifyRequest, reply: FastifyReply): void {
  const known = noRouteResponse(err, req) ?? toErrorResponse(err);
  if (known) {
    if (known.status >= 500) logger.warn({ reqId: req.id, err: known.message }, 'request failed');
    void reply
      .status(known.status)
      .headers(known.headers)
      .send(errorBody(req.url, known.code, known.message));
    return;
  }
  logger.error({ reqId: req.id, err, url: req.url }, 'unexpected error');
  void reply.status(500).send(errorBody(req.url, 'INTERNAL_ERROR', internalErrorMessage(req.id)));
}

/**
 * The one place errors are answered: Nest installs Fastify's error handler and routes every
 * error to it, those of body parsing, size limits and decompression included.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(this.logger, err, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
