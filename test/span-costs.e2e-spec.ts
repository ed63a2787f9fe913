import { randomBytes } from 'node:crypto';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { bootstrap, eventually, send } from './support/api';
import { NATIVE_TRACES, OTLP_TRACES, write } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

/**
 * Issue 28: a span with a model and tokens and no cost is costed from the built-in price table
 * at its start time, each usage type at its own price, and says so (`costSource: price:<id>`);
 * a client's cost is kept (`costSource: client`). Through the real API, JetStream and processor.
 */
describe('span costs from the price table', () => {
  let stack: Stack;
  let key: string;

  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  /** 2025-07-01T00:00:00Z, after o3's price cut of 2025-06-10. */
  const JULY_2025 = '1751328000000000000';
  /** 2025-01-15T10:00:00Z, before it. */
  const JANUARY_2025 = '1736935200000000000';

  const readSpans = async (body: unknown, path = OTLP_TRACES, traceId: string) => {
    const res = await write(stack, key, path, body);
    expect(res.status).toBeLessThan(300);
    const trace = await send(stack, 'GET', `/api/v1/traces/${traceId}?minSeq=${res.seq}`, { token: key });
    expect(trace.status).toBe(200);
    return trace.body.spans as Record<string, any>[];
  };
  const otlpSpan = (traceId: string, attributes: Record<string, string | number>, start = JULY_2025) =>
    span({
      traceId,
      spanId: hex(8),
      parentSpanId: '',
      name: 'call',
      startTimeUnixNano: start,
      endTimeUnixNano: start,
      attributes: attrs(attributes),
    });

  beforeAll(async () => {
    stack = await startStack();
    key = (await bootstrap(stack, 'costs@spanlog.test', 'Costs', 'main')).apiKey;
  }, 120_000);

  afterAll(() => stack?.stop());

  it('costs a span with model and tokens and no cost from the table, pricing cache reads, cache writes and reasoning each', async () => {
    const traceId = hex(16);
    const [s] = await readSpans(
      exportOf([
        otlpSpan(traceId, {
          'gen_ai.request.model': 'claude-sonnet-4-5-20250929',
          'gen_ai.usage.input_tokens': 1_000_000,
          'gen_ai.usage.output_tokens': 200_000,
          'gen_ai.usage.cache_read.input_tokens': 500_000,
          'gen_ai.usage.cache_creation.input_tokens': 100_000,
          'gen_ai.usage.reasoning.output_tokens': 50_000,
        }),
      ]),
      OTLP_TRACES,
      traceId,
    );
    expect(s.usageDetails).toEqual({ input: 400_000, cached_input: 500_000, cache_write: 100_000, output: 150_000, reasoning: 50_000 });
    expect(s.costSource).toBe('price:claude-sonnet-4-5');
    // $3 input, $0.30 cache hits, $3.75 cache writes, $15 output; reasoning is billed as output.
    expect(s.costDetails.input).toBeCloseTo(1.2, 9);
    expect(s.costDetails.cached_input).toBeCloseTo(0.15, 9);
    expect(s.costDetails.cache_write).toBeCloseTo(0.375, 9);
    expect(s.costDetails.output).toBeCloseTo(2.25, 9);
    expect(s.costDetails.reasoning).toBeCloseTo(0.75, 9);
    expect(s.cost).toBeCloseTo(1.2 + 0.15 + 0.375 + 2.25 + 0.75, 9);
    expect({ promptTokens: s.promptTokens, completionTokens: s.completionTokens }).toEqual({
      promptTokens: 1_000_000,
      completionTokens: 200_000,
    });
  });

  it('keeps the cost the client sent, and says so', async () => {
    const traceId = hex(16);
    const [s] = await readSpans(
      exportOf([
        otlpSpan(traceId, {
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 1000,
          'gen_ai.usage.output_tokens': 10,
          'gen_ai.usage.cost': 0.42,
        }),
      ]),
      OTLP_TRACES,
      traceId,
    );
    expect({ cost: s.cost, costSource: s.costSource, costDetails: s.costDetails }).toEqual({
      cost: 0.42,
      costSource: 'client',
      costDetails: {},
    });
  });

  it('prices by the definition valid at the span start', async () => {
    const traceId = hex(16);
    const usage = { 'gen_ai.request.model': 'o3', 'gen_ai.usage.input_tokens': 1_000_000, 'gen_ai.usage.output_tokens': 0 };
    const spans = await readSpans(
      exportOf([otlpSpan(traceId, usage, JANUARY_2025), otlpSpan(traceId, usage, JULY_2025)]),
      OTLP_TRACES,
      traceId,
    );
    const byStart = [...spans].sort((a, b) => String(a.startTime).localeCompare(String(b.startTime)));
    expect(byStart.map((s) => [s.costSource, Number(s.cost.toFixed(9))])).toEqual([
      ['price:o3-2025-04', 10],
      ['price:o3-2025-06', 2],
    ]);
  });

  it('costs a native generation from its usage by type, and a later client cost wins over it', async () => {
    const traceId = `costs-${hex(4)}`;
    const at = '2025-07-01T00:00:00.000Z';
    const generation = {
      id: 'gen-1',
      traceId,
      name: 'answer',
      startTime: at,
      model: 'gpt-4o-mini',
      usageDetails: { input: 1_000_000, input_cached_tokens: 1_000_000, output: 1_000_000 },
    };
    const first = await readSpans(
      { batch: [{ id: 'e1', type: 'generation-create', timestamp: at, body: generation }] },
      NATIVE_TRACES,
      traceId,
    );
    expect(first[0]).toMatchObject({
      costSource: 'price:gpt-4o-mini',
      usageDetails: { input: 1_000_000, cached_input: 1_000_000, output: 1_000_000 },
    });
    expect(first[0].cost).toBeCloseTo(0.15 + 0.075 + 0.6, 9);
    const later = '2025-07-01T00:00:01.000Z';
    const updated = await readSpans(
      { batch: [{ id: 'e2', type: 'generation-update', timestamp: later, body: { id: 'gen-1', traceId, cost: 0.01 } }] },
      NATIVE_TRACES,
      traceId,
    );
    expect({ cost: updated[0].cost, costSource: updated[0].costSource, costDetails: updated[0].costDetails }).toEqual({
      cost: 0.01,
      costSource: 'client',
      costDetails: {},
    });
  });

  it('costs a native generation whose model and usage come in different requests, in either order, as a rebuild does; a client cost in either wins', async () => {
    const traceId = `merged-${hex(4)}`;
    const start = '2025-07-01T00:00:00.000Z';
    const later = '2025-07-01T00:00:01.000Z';
    const event = (type: string, timestamp: string, body: Record<string, unknown>) => ({
      batch: [{ id: `e-${hex(4)}`, type, timestamp, body: { traceId, ...body } }],
    });
    const create = (id: string, more: Record<string, unknown>) =>
      event('generation-create', start, { id, name: 'answer', startTime: start, model: 'gpt-4o-mini', ...more });
    const update = (id: string, more: Record<string, unknown>) => event('generation-update', later, { id, ...more });
    const usage = { input: 1_000_000, output: 1_000_000 };
    // Each request applied before the next is sent: one live batch each.
    await readSpans(create('model-first', {}), NATIVE_TRACES, traceId);
    await readSpans(update('model-first', { usage }), NATIVE_TRACES, traceId);
    // A span told only by an update has no type or start yet, which the API's answer requires: read from the table.
    expect((await write(stack, key, NATIVE_TRACES, update('usage-first', { usage }))).status).toBeLessThan(300);
    await eventually(
      async () => (await stack.db.query(`SELECT 1 FROM spans WHERE external_id = 'usage-first' AND usage_details IS NOT NULL`)).rowCount,
      (n) => n === 1,
    );
    await readSpans(create('usage-first', {}), NATIVE_TRACES, traceId);
    await readSpans(create('client-in-create', { cost: 0.5 }), NATIVE_TRACES, traceId);
    await readSpans(update('client-in-create', { usage }), NATIVE_TRACES, traceId);
    await readSpans(create('client-in-update', {}), NATIVE_TRACES, traceId);
    await readSpans(update('client-in-update', { usage, cost: 0.7 }), NATIVE_TRACES, traceId);
    const costs = async () => {
      const res = await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: key });
      expect(res.status).toBe(200);
      const spans = res.body.spans as Record<string, any>[];
      return Object.fromEntries(spans.map((s) => [s.externalId, { cost: s.cost, costSource: s.costSource, costDetails: s.costDetails }]));
    };
    const live = await costs();
    const priced = { costSource: 'price:gpt-4o-mini', costDetails: { input: 0.15, output: 0.6 } };
    expect(live['model-first']).toMatchObject(priced);
    expect(live['model-first'].cost).toBeCloseTo(0.75, 9);
    expect(live['usage-first']).toEqual(live['model-first']);
    expect(live['client-in-create']).toEqual({ cost: 0.5, costSource: 'client', costDetails: {} });
    expect(live['client-in-update']).toEqual({ cost: 0.7, costSource: 'client', costDetails: {} });

    expect((await runCli(['rebuild', 'telemetry', '--json'], stack.env)).code).toBe(0);
    expect(await costs()).toEqual(live);
  }, 120_000);

  it('leaves a span of a model the table does not know without a cost', async () => {
    const traceId = hex(16);
    const [s] = await readSpans(
      exportOf([otlpSpan(traceId, { 'gen_ai.request.model': 'my-own-model', 'gen_ai.usage.input_tokens': 5 })]),
      OTLP_TRACES,
      traceId,
    );
    expect({ cost: s.cost, costSource: s.costSource, costDetails: s.costDetails, usageDetails: s.usageDetails }).toEqual({
      cost: null,
      costSource: null,
      costDetails: {},
      usageDetails: { input: 5 },
    });
  });
});
