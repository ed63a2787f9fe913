import Fastify from 'fastify';
import { httpRequestDuration, httpRequests } from '@app/metrics';
import { UNMATCHED_ROUTE, registerRequestMetrics } from './request-metrics';

describe(registerRequestMetrics.name, () => {
  const count = async (labels: Partial<Record<'method' | 'route' | 'status', string>>) =>
    (await httpRequests.get()).values
      .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k as keyof typeof labels] === x))
      .reduce((sum, v) => sum + v.value, 0);
  const timed = async (route: string) =>
    (await httpRequestDuration.get()).values
      .filter((v) => v.metricName?.endsWith('_count') && v.labels.route === route)
      .reduce((sum, v) => sum + v.value, 0);

  beforeEach(() => {
    httpRequests.reset();
    httpRequestDuration.reset();
  });

  it('labels requests by route pattern, method and status, never by the URL they came with', async () => {
    const app = Fastify();
    registerRequestMetrics(app);
    app.get('/api/v1/traces/:id', async (req, reply) => reply.code((req.params as { id: string }).id === 'gone' ? 404 : 200).send({}));
    for (const id of ['a', 'b', 'c', 'gone']) await app.inject({ method: 'GET', url: `/api/v1/traces/${id}?minSeq=v1.x` });
    await app.inject({ method: 'POST', url: '/api/v1/traces/a' });
    await app.inject({ method: 'GET', url: '/no/such/path/7d1c' });

    expect(await count({ route: '/api/v1/traces/:id', method: 'GET', status: '200' })).toBe(3);
    expect(await count({ route: '/api/v1/traces/:id', method: 'GET', status: '404' })).toBe(1);
    expect(await count({ route: UNMATCHED_ROUTE })).toBe(2);
    expect(await timed('/api/v1/traces/:id')).toBe(4);
    const routes = new Set((await httpRequests.get()).values.map((v) => v.labels.route));
    expect(routes).toEqual(new Set(['/api/v1/traces/:id', UNMATCHED_ROUTE]));
    await app.close();
  });
});
