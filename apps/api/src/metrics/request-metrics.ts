import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpRequestDuration, httpRequests } from '@app/metrics';

export const METRICS_PATH = '/metrics';
/** The route label of requests no route matched (404s), so unknown paths cannot grow the label set. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The route pattern (`/api/v1/traces/:id`) a request matched: never the URL, whose ids would make a series per trace. */
export const routeOf = (req: FastifyRequest): string => req.routeOptions.url ?? UNMATCHED_ROUTE;

/** Counts and times every answer by method, route pattern and status. */
export function registerRequestMetrics(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    const labels = { method: req.method, route: routeOf(req), status: String(reply.statusCode) };
    httpRequests.inc(labels);
    httpRequestDuration.observe(labels, reply.elapsedTime / 1_000);
  });
}
