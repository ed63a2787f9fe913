import { randomUUID } from 'node:crypto';
import { type Session, type Tenant, bootstrap, data, eventually, login, query, send } from './support/api';
import { OTLP_TRACES, write } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

const DAY_MS = 86_400_000;

/** RPC `stats.overview` over the 5-minute stats read model, with the real apps. */
describe('overview stats (stats.overview)', () => {
  let stack: Stack;
  let a: Tenant;
  let aSession: Session;
  let bSession: Session;
  const t0 = Date.now() - 30 * 60_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  beforeAll(async () => {
    stack = await startStack();
    a = await bootstrap(stack, 'overview-a@spanlog.test', 'Overview A', 'p', 'free');
    await bootstrap(stack, 'overview-b@spanlog.test', 'Overview B', 'p');
    aSession = await login(stack, 'overview-a@spanlog.test');
    bSession = await login(stack, 'overview-b@spanlog.test');
  }, 120_000);

  afterAll(() => stack?.stop());

  const overview = (input: Record<string, unknown> = {}, session = aSession) =>
    query(stack, session.access_token, 'stats.overview', {
      projectId: a.projectId,
      from: iso(t0 - 3_600_000),
      to: iso(Date.now() + 60_000),
      ...input,
    });
  /** A trace named `name` at `at` with one generation of `model` taking `ms`, and a plain span, an error. */
  const ingestTrace = async (name: string, at: number, model: string, ms: number) => {
    const traceId = `ov-${randomUUID()}`;
    const res = await send(stack, 'POST', '/api/v1/traces', {
      token: a.apiKey,
      body: {
        batch: [
          { id: randomUUID(), type: 'trace-create', timestamp: iso(at), body: { id: traceId, name, timestamp: iso(at) } },
          {
            id: randomUUID(),
            type: 'generation-create',
            timestamp: iso(at),
            body: {
              id: `${traceId}-g`,
              traceId,
              name: 'llm',
              model,
              startTime: iso(at),
              endTime: iso(at + ms),
              usage: { input: 10, output: 5 },
              cost: 0.25,
            },
          },
          {
            id: randomUUID(),
            type: 'span-create',
            timestamp: iso(at),
            body: { id: `${traceId}-s`, traceId, name: 'tool', startTime: iso(at), endTime: iso(at + 10), level: 'ERROR' },
          },
        ],
      },
    });
    expect(res.status).toBe(201);
    return traceId;
  };
  const settled = () =>
    eventually(
      async () => (await stack.db.query('SELECT count(*)::int AS n FROM stats_5m_dirty')).rows[0].n,
      (n) => n === 0,
      30_000,
    );

  it('shows traces and spans over time, latency, cost and tokens per model, error rate by span type and score means, and changes as more is ingested', async () => {
    const first = await ingestTrace('chat', t0, 'gpt-4o', 200);
    expect(
      (await send(stack, 'POST', '/api/v1/scores', { token: a.apiKey, body: { traceId: first, name: 'helpful', value: true } })).status,
    ).toBe(201);
    const before = await eventually(
      async () => data(await overview({ bucketSeconds: 600 })),
      (o: any) => o.series.some((p: any) => p.spans === 2) && o.scores.length === 1,
      30_000,
    );
    expect(before.bucketSeconds).toBe(600);
    const point = before.series.find((p: any) => p.spans === 2);
    expect(point).toMatchObject({ traces: 1, spans: 2, errors: 1, costUsd: 0.25, tokens: 15 });
    expect(point.latencyP95Ms).toBeGreaterThanOrEqual(150);
    expect(before.models).toEqual([
      {
        model: 'gpt-4o',
        calls: 1,
        errors: 0,
        costUsd: 0.25,
        promptTokens: 10,
        completionTokens: 5,
        latencyP50Ms: expect.any(Number),
        latencyP95Ms: expect.any(Number),
        unpricedCalls: 0,
      },
    ]);
    expect(Math.abs(before.models[0].latencyP50Ms - 200) / 200).toBeLessThan(0.1);
    expect(before.spanTypes).toEqual([
      { spanType: 'CUSTOM', calls: 1, errors: 1, errorRate: 1 },
      { spanType: 'LLM', calls: 1, errors: 0, errorRate: 0 },
    ]);
    expect(before.scores).toEqual([{ name: 'helpful', source: 'API', count: 1, mean: 1, passRate: 1 }]);
    // Every point of the range is there, 600 s apart, empty ones as zeros.
    const starts = before.series.map((p: any) => Date.parse(p.t));
    expect(starts.every((t: number, i: number) => i === 0 || t - starts[i - 1] === 600_000)).toBe(true);

    await ingestTrace('chat', t0 + 60_000, 'claude', 3_000);
    const second = await ingestTrace('search', t0 + 60_000, 'gpt-4o', 400);
    expect(
      (await send(stack, 'POST', '/api/v1/scores', { token: a.apiKey, body: { traceId: second, name: 'helpful', value: false } })).status,
    ).toBe(201);
    const after = await eventually(
      async () => data(await overview({ bucketSeconds: 600 })),
      (o: any) => o.series.reduce((n: number, p: any) => n + p.spans, 0) === 6 && o.scores[0]?.count === 2,
      30_000,
    );
    expect(after.series.reduce((n: number, p: any) => n + p.traces, 0)).toBe(3);
    expect(after.models.map((m: any) => [m.model, m.calls])).toEqual([
      ['gpt-4o', 2],
      ['claude', 1],
    ]);
    expect(after.spanTypes).toContainEqual({ spanType: 'CUSTOM', calls: 3, errors: 3, errorRate: 1 });
    expect(after.scores).toEqual([{ name: 'helpful', source: 'API', count: 2, mean: 0.5, passRate: 0.5 }]);
    // The default bucket: at most ~200 points over the range.
    const auto = data(await overview());
    expect(auto.bucketSeconds).toBe(300);
    expect(auto.series.length).toBeLessThanOrEqual(201);
  });

  it('counts as LLM calls the spans whose operation calls a model, not the tools and agents typed LLM, and breaks spans down by operation (issue 26)', async () => {
    const traceId = randomUUID().replace(/-/g, '');
    const nanos = (ms: number) => `${ms}000000`;
    const genAi = (spanId: string, name: string, operation: string, parentSpanId = '') => ({
      traceId,
      spanId,
      parentSpanId,
      name,
      startTimeUnixNano: nanos(t0 + 120_000),
      endTimeUnixNano: nanos(t0 + 120_050),
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: operation } }],
    });
    // Any gen_ai.* key makes a span LLM (SPEC 2.3 row 2): the agent and its tool are typed LLM too.
    const spans = [
      genAi('a000000000000001', 'invoke_agent weather', 'invoke_agent'),
      genAi('a000000000000002', 'execute_tool get_weather', 'execute_tool', 'a000000000000001'),
    ];
    const posted = await write(stack, a.apiKey, OTLP_TRACES, { resourceSpans: [{ scopeSpans: [{ spans }] }] });
    expect(posted.status).toBe(200);
    const o = await eventually(
      async () => data(await overview({ bucketSeconds: 600 })),
      (x: any) => x.operations.some((op: any) => op.operation === 'execute_tool'),
      30_000,
    );
    expect(o.spanTypes).toContainEqual({ spanType: 'LLM', calls: 5, errors: 0, errorRate: 0 });
    expect(o.llmCalls).toBe(3);
    expect(o.operations.map((op: any) => [op.operation, op.calls, op.errors])).toEqual([
      [null, 3, 3],
      ['chat', 3, 0],
      ['execute_tool', 1, 0],
      ['invoke_agent', 1, 0],
    ]);
    expect(o.operations[1]).toMatchObject({ costUsd: 0.75, tokens: 45, latencyP95Ms: expect.any(Number) });
  });

  it('equals a recount of the rows, also after the stats are rebuilt', async () => {
    await settled();
    const stored = async () =>
      (
        await stack.db.query(
          'SELECT bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, total_tokens FROM span_stats_5m WHERE project_id = $1 ORDER BY 1, 2, 3, 4, 5',
          [a.projectId],
        )
      ).rows;
    const live = await stored();
    const [{ n }] = (await stack.db.query('SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [a.projectId])).rows;
    expect(live.reduce((sum: number, r: any) => sum + r.calls, 0)).toBe(n);
    await stack.db.query('UPDATE span_stats_5m SET calls = 999');
    const rebuilt = await runCli(['rebuild', 'model-stats', '--json'], stack.env);
    expect(rebuilt.code).toBe(0);
    expect(await stored()).toEqual(live);
  });

  it('drops what retention deletes', async () => {
    const run = await runCli(['admin', 'retention', 'run', '--now', iso(Date.now() + 60 * DAY_MS), '--json'], stack.env);
    expect(run.code).toBe(0);
    const emptied = await eventually(
      async () => data(await overview()),
      (o: any) => o.series.every((p: any) => p.spans === 0 && p.traces === 0) && o.scores.length === 0,
      30_000,
    );
    expect(emptied.models).toEqual([]);
    expect(emptied.spanTypes).toEqual([]);
    expect(emptied.operations).toEqual([]);
    expect(emptied.llmCalls).toBe(0);
  });

  it('refuses a bad range with a 400 naming the field, and another organization’s project with a 403', async () => {
    const bad = await overview({ to: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^input\.to: must be an ISO 8601 timestamp/);
    const wide = await overview({ from: iso(t0 - 91 * DAY_MS), to: iso(t0) });
    expect(wide.status).toBe(400);
    expect(wide.body.error.message).toBe('input.to: must be at most 90 days after input.from');
    expect((await overview({}, bSession)).status).toBe(403);
    expect((await query(stack, undefined, 'stats.overview', { projectId: a.projectId, from: iso(t0), to: iso(t0 + 1) })).status).toBe(401);
  });
});
