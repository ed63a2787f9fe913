import { randomBytes } from 'node:crypto';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';
import type { UnpricedUsage } from '@app/domain';
import { type Session, type Tenant, bootstrap, createUser, data, eventually, login, query, send } from './support/api';
import { NATIVE_TRACES, OTLP_TRACES, write } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

/**
 * Issue 28: usage the price table cannot price is surfaced, per project, model and usage type,
 * with span counts and first and last seen: over REST with an API key, the dashboard RPC, and
 * `spanlog costs unpriced`; and a span read says where its cost came from and which of its
 * types had no price. Through the real API, JetStream, processor and stats recount.
 */
describe('unpriced usage', () => {
  let stack: Stack;
  let tenant: Tenant;
  let session: Session;
  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  const AT = '2025-07-01T00:00:00.000Z';
  const AT_NANOS = '1751328000000000000';
  const LATER = '2025-07-01T00:12:00.000Z';
  const otlpTrace = hex(16);
  const nativeTrace = `unpriced-${hex(4)}`;

  const unpricedRest = (path = '/api/v1/costs/unpriced', token = tenant.apiKey) => send(stack, 'GET', path, { token });

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'unpriced@spanlog.test', 'Unpriced', 'main');
    session = await login(stack, 'unpriced@spanlog.test');
    const otlp = await write(
      stack,
      tenant.apiKey,
      OTLP_TRACES,
      exportOf([
        span({
          traceId: otlpTrace,
          spanId: hex(8),
          parentSpanId: '',
          name: 'frontier call',
          startTimeUnixNano: AT_NANOS,
          endTimeUnixNano: AT_NANOS,
          attributes: attrs({
            'gen_ai.request.model': 'acme-frontier-1',
            'gen_ai.usage.input_tokens': 120,
            'gen_ai.usage.output_tokens': 30,
          }),
        }),
      ]),
    );
    expect(otlp.status).toBeLessThan(300);
    // A priced model with a usage type the table has no price for: its cost leaves the audio tokens out and says so.
    const generation = {
      id: 'gen-audio',
      traceId: nativeTrace,
      name: 'voice answer',
      startTime: LATER,
      model: 'gpt-4o-mini',
      usageDetails: { input: 1_000_000, input_audio: 2_000 },
    };
    const native = await write(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [{ id: 'e1', type: 'generation-create', timestamp: LATER, body: generation }],
    });
    expect(native.status).toBe(201);
  }, 120_000);

  afterAll(() => stack?.stop());

  const EXPECTED: UnpricedUsage['models'] = [
    {
      model: 'gpt-4o-mini',
      spans: 1,
      firstSeen: LATER,
      lastSeen: LATER,
      usageTypes: [{ type: 'input_audio', spans: 1, firstSeen: LATER, lastSeen: LATER }],
    },
    {
      model: 'acme-frontier-1',
      spans: 1,
      firstSeen: AT,
      lastSeen: AT,
      usageTypes: [
        { type: 'input', spans: 1, firstSeen: AT, lastSeen: AT },
        { type: 'output', spans: 1, firstSeen: AT, lastSeen: AT },
      ],
    },
  ];

  it('answers the models and usage types seen without a price over REST, with an optional range', async () => {
    const all = await eventually(
      async () => unpricedRest(),
      (res) => res.status === 200 && res.body.models.length === 2,
      30_000,
    );
    expect(all.body).toEqual({ from: null, to: null, models: EXPECTED });
    const early = await unpricedRest(`/api/v1/costs/unpriced?from=${encodeURIComponent(AT)}&to=2025-07-01T00:05:00Z`);
    expect(early.status).toBe(200);
    expect(early.body).toEqual({ from: AT, to: '2025-07-01T00:05:00.000Z', models: [EXPECTED[1]] });
  });

  it('refuses a bad range naming the field, and a request without a valid key', async () => {
    const bad = await unpricedRest('/api/v1/costs/unpriced?from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^from: must be/) });
    const reversed = await unpricedRest('/api/v1/costs/unpriced?from=2025-07-02T00:00:00Z&to=2025-07-01T00:00:00Z');
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.message).toBe('to: must be after from');
    expect((await unpricedRest('/api/v1/costs/unpriced', 'sl_not_a_key')).status).toBe(401);
  });

  it('answers the same over the dashboard RPC to a member, and refuses anyone else', async () => {
    const answer = await eventually(
      async () => query(stack, session.access_token, 'cost.unpriced', { projectId: tenant.projectId }),
      (res) => res.status === 200 && data(res).models.length === 2,
      30_000,
    );
    expect(data(answer).models).toEqual(EXPECTED);
    const bad = await query(stack, session.access_token, 'cost.unpriced', { projectId: tenant.projectId, to: 'soon' });
    expect(bad.status).toBe(400);
    await createUser(stack, 'outsider@spanlog.test');
    const outsider = await login(stack, 'outsider@spanlog.test');
    expect((await query(stack, outsider.access_token, 'cost.unpriced', { projectId: tenant.projectId })).status).toBe(403);
  });

  it('is listed by spanlog costs unpriced, as JSON or a table', async () => {
    await eventually(
      async () => unpricedRest(),
      (res) => res.status === 200 && res.body.models.length === 2,
      30_000,
    );
    const env = { ...stack.env, SPANLOG_API_KEY: tenant.apiKey };
    const json = await runCli(['costs', 'unpriced', '--api', stack.baseUrl, '--json'], env);
    expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout)).toEqual({ from: null, to: null, models: EXPECTED });
    const text = await runCli(['costs', 'unpriced', '--api', stack.baseUrl, '--from', '2025-07-01T00:10:00Z'], env);
    expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
    expect(text.stdout).toContain('gpt-4o-mini  input_audio (1)  1');
    expect(text.stdout).not.toContain('acme-frontier-1');
  });

  it('says on every span read where the cost came from and which types had no price', async () => {
    const trace = await send(stack, 'GET', `/api/v1/traces/${nativeTrace}`, { token: tenant.apiKey });
    expect(trace.status).toBe(200);
    const [s] = trace.body.spans;
    expect(s).toMatchObject({
      costSource: 'price:gpt-4o-mini',
      costDefinition: { id: 'gpt-4o-mini', modelName: 'gpt-4o-mini' },
      costDetails: { input: expect.closeTo(0.15, 9) },
      unpricedUsage: ['input_audio'],
      usageDetails: { input: 1_000_000, input_audio: 2_000 },
    });
    const rpcSpan = data(
      await query(stack, session.access_token, 'trace.span', { projectId: tenant.projectId, traceId: trace.body.id, spanId: s.id }),
    );
    expect(rpcSpan).toMatchObject({ costSource: 'price:gpt-4o-mini', costDefinition: s.costDefinition, unpricedUsage: ['input_audio'] });
    const frontier = await send(stack, 'GET', `/api/v1/traces/${otlpTrace}`, { token: tenant.apiKey });
    expect(frontier.body.spans[0]).toMatchObject({
      cost: null,
      costSource: null,
      costDefinition: null,
      unpricedUsage: ['input', 'output'],
    });
  });
});
