import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_BODY_BYTES } from '@app/domain';

/** The most of a refused body the server reads and drops to keep the connection. */
export const MAX_DRAINED_BYTES = 4 * MAX_BODY_BYTES;

const declaredLength = (req: FastifyRequest): number => Number(req.headers['content-length'] ?? Number.NaN);
const isChunked = (req: FastifyRequest): boolean => /\bchunked\b/i.test(String(req.headers['transfer-encoding'] ?? ''));

/**
 * Fastify answers a body over the limit with 413 and `Connection: close` before reading the
 * rest of it. A client still sending then hits a closed socket (EPIPE) and never reads the
 * 413, and OTel exporters retry a network error where they would have dropped a 413. So the
 * connection is kept while what is left is bounded:
 * - a declared length: Node reads and drops the rest (it dumps an unread body, and an
 *   inflating body is read to its end);
 * - a chunked body, which Fastify stopped reading part way: it is read and dropped here, and
 *   the connection is cut once more than MAX_DRAINED_BYTES came in.
 * The client finishes sending, then reads the answer, and the next request on the connection
 * starts where this body ends. A body declared larger still closes.
 */
export function registerOversizedBodyAnswer(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (req, reply) => {
    if (reply.statusCode !== 413 || req.raw.complete) return;
    if (declaredLength(req) <= MAX_DRAINED_BYTES) {
      reply.removeHeader('connection');
    } else if (isChunked(req)) {
      reply.removeHeader('connection');
      drainChunked(req);
    }
  });
}

function drainChunked(req: FastifyRequest): void {
  let drained = 0;
  req.raw.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAINED_BYTES) req.raw.socket.destroy();
  });
  req.raw.resume();
}
