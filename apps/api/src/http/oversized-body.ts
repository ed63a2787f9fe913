import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_BODY_BYTES } from '@app/domain';

/** The most of a refused body the server reads and drops to keep the connection. */
export const MAX_DRAINED_BYTES = 4 * MAX_BODY_BYTES;

const declaredLength = (req: FastifyRequest): number => Number(req.headers['content-length'] ?? Number.NaN);

/**
 * Fastify answers a body over the limit with 413 and `Connection: close` before reading the
 * rest of it. A client still sending then hits a closed socket (EPIPE) and never reads the
 * 413, and OTel exporters retry a network error where they would have dropped a 413. When the
 * declared length bounds what is left, the connection is kept instead: Node reads and drops
 * the rest (Node dumps an unread body, and an inflating body is read to its end), so the
 * client finishes sending, then reads the answer, and the next request on the connection
 * starts where this body ends. A body of undeclared or larger length still closes.
 */
export function registerOversizedBodyAnswer(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (req, reply) => {
    if (reply.statusCode === 413 && !req.raw.complete && declaredLength(req) <= MAX_DRAINED_BYTES) reply.removeHeader('connection');
  });
}
