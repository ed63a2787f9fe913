import { randomBytes } from 'node:crypto';
import { dbl, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { type Tenant, bootstrap } from './support/api';
import { type Stack, startStack } from './support/stack';

// ../shared/BAD_INPUTS.md over HTTP: what a client sends may be refused, never answered 5xx.

describe('bad inputs over HTTP', () => {
  let stack: Stack;
  let tenant: Tenant;

  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, seq: res.headers.get('spanlog-seq') };
  };

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'bad-inputs@spanlog.test', 'Bad inputs', 'main');
  }, 120_000);

  afterAll(() => stack?.stop());

  describe('cost, token and time ranges', () => {
    it('refuses an overflowing cost and a year-9999 trace natively, maps no such OTLP cost, and the trace list keeps answering', async () => {
      const at = '2026-03-01T10:00:00Z';
      const native = await request('POST', '/api/v1/traces', {
        batch: [
          { id: 'far', type: 'trace-create', timestamp: at, body: { id: 'far-future', name: 'pinned', timestamp: '9999-12-31T00:00:00Z' } },
          { id: 'ok', type: 'trace-create', timestamp: at, body: { id: 'costly', name: 'costly' } },
          { id: 'huge', type: 'generation-create', timestamp: at, body: { id: 'g1', traceId: 'costly', name: 'chat', startTime: at, cost: 1.7976931348623157e308 } },
          { id: 'fine', type: 'generation-create', timestamp: at, body: { id: 'g2', traceId: 'costly', name: 'chat', startTime: at, cost: 0.5 } },
        ],
      });
      expect(native.status).toBe(201);
      expect(native.body).toEqual({
        accepted: 2,
        errors: [
          { index: 0, id: 'far', code: 'VALIDATION_ERROR', message: expect.stringMatching(/^batch\[0\]\.body\.timestamp: must be an ISO 8601 timestamp from 1970/) },
          { index: 2, id: 'huge', code: 'VALIDATION_ERROR', message: 'batch[2].body.cost: must be a number from 0 to 1000000' },
        ],
      });

      const traceId = randomBytes(16).toString('hex');
      const costly = (spanId: string) => span({ traceId, spanId, parentSpanId: '', attributes: [{ key: 'gen_ai.usage.cost', value: dbl(1e308) }] });
      const otlp = await request('POST', '/api/v1/otel/traces', exportOf([costly('00000000000000a1'), costly('00000000000000a2')]));
      expect(otlp).toMatchObject({ status: 200, body: { accepted: 2 } });

      const list = await request('GET', `/api/v1/traces?minSeq=${otlp.seq}`);
      expect(list.status).toBe(200);
      expect(list.body.data.map((t: { externalId: string | null; otelTraceId: string | null; totalCost: number | null }) => [t.externalId ?? t.otelTraceId, t.totalCost])).toEqual(
        expect.arrayContaining([
          [traceId, null],
          ['costly', 0.5],
        ]),
      );
      const trace = await request('GET', `/api/v1/traces/${traceId}`);
      expect(trace.body.spans.map((s: { cost: number | null; attributes: Record<string, unknown> }) => [s.cost, s.attributes['gen_ai.usage.cost']])).toEqual([
        [null, 1e308],
        [null, 1e308],
      ]);
    });
  });
});
