import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { sendError } from '../error-handling';

/** For tests of the HTTP plugins on a bare Fastify: answers errors as the app does through Nest. */
export function answerErrorsLikeTheApp(fastify: FastifyInstance, logger: Logger): void {
  fastify.setErrorHandler((err: FastifyError, req, reply) => sendError(logger, err, req, reply));
}
