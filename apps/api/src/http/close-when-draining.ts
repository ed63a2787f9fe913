import type { FastifyInstance } from 'fastify';

/**
 * Once the server is closing, every response asks its client to close the connection.
 * Fastify's close reaps the keep-alive connections idle at that moment and answers requests
 * that arrive later with 503, but a connection whose request was in flight stays open after its
 * answer, and a client keeping it (undici keeps one for the server's `Keep-Alive: timeout=72`
 * less a second) held the API's stop until then: 70.4 s with 5 requests in flight at SIGTERM,
 * 0.4 s with this hook.
 */
export function closeConnectionsWhenDraining(fastify: FastifyInstance): void {
  let draining = false;
  fastify.addHook('preClose', async () => {
    draining = true;
  });
  fastify.addHook('onSend', async (_req, reply) => {
    if (draining) void reply.header('connection', 'close');
  });
}
