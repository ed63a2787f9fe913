import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PASSWORD, type Session, type Tenant, bootstrap, data, eventually, login, mutate, query, send } from './support/api';
import { metricValue, scrapeMetrics } from './support/metrics';
import { type Stack, runCli, startStack } from './support/stack';

/**
 * Monitors (issue 16) with the real apps: the processor evaluates every second here
 * (SPANLOG_MONITOR_INTERVAL_MS) and takes the 5-minute bucket still filling in
 * (SPANLOG_MONITOR_SETTLE_MS=-300000), so fresh data is judged at once.
 */
describe('monitors', () => {
  let stack: Stack;
  let webhook: Server;
  let base: string;
  let a: Tenant;
  let quiet: Tenant;
  let aSession: Session;
  let quietSession: Session;
  const iso = (ms: number) => new Date(ms).toISOString();
  /** `spanlog` as the user with this e-mail, logged in with its own session file. */
  const cliAs = async (email: string) => {
    const env = { ...stack.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'spanlog-alerts-')) };
    const logged = await runCli(['login', '--email', email, '--password', PASSWORD, '--api', stack.baseUrl, '--json'], env);
    expect(logged.code).toBe(0);
    return (args: string[]) => runCli(args, env);
  };

  beforeAll(async () => {
    webhook = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ score: 0.1, pass: false, reason: 'unhelpful' })),
      );
    });
    webhook.listen(0, '127.0.0.1');
    await once(webhook, 'listening');
    base = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
    stack = await startStack({ SPANLOG_MONITOR_INTERVAL_MS: '1000', SPANLOG_MONITOR_SETTLE_MS: '-300000' });
    a = await bootstrap(stack, 'monitors-a@spanlog.test', 'Monitors A', 'p', 'team');
    quiet = await bootstrap(stack, 'monitors-quiet@spanlog.test', 'Monitors quiet', 'p', 'team');
    aSession = await login(stack, 'monitors-a@spanlog.test');
    quietSession = await login(stack, 'monitors-quiet@spanlog.test');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => webhook?.close(resolve));
  });

  const create = async (tenant: Tenant, session: Session, input: Record<string, unknown>) =>
    data(await mutate(stack, session.access_token, 'monitor.create', { projectId: tenant.projectId, ...input }));
  /** Alerts when the hour's p95 latency of gpt-4o spans in `chat` traces passes one second. */
  const slowChat = (name: string) => ({
    name,
    metric: 'latency_p95',
    filter: { model: 'gpt-4o', traceName: 'chat' },
    windowSeconds: 3600,
    comparison: '>',
    threshold: 1000,
  });
  const monitorOf = async (tenant: Tenant, session: Session, id: string) =>
    (data(await query(stack, session.access_token, 'monitor.list', { projectId: tenant.projectId })) as any[]).find((m) => m.id === id);
  const stateOf = (tenant: Tenant, session: Session, id: string, state: string) =>
    eventually(
      () => monitorOf(tenant, session, id),
      (m) => m?.state === state,
      30_000,
    );
  /** `n` LLM calls of `ms` each, a minute ago, in traces named `chat`. */
  const calls = async (n: number, ms: number) => {
    const at = Date.now() - 60_000;
    const batch = Array.from({ length: n }, (_, i) => {
      const traceId = `mon-${randomUUID()}`;
      return [
        { id: randomUUID(), type: 'trace-create', timestamp: iso(at), body: { id: traceId, name: 'chat' } },
        {
          id: randomUUID(),
          type: 'generation-create',
          timestamp: iso(at),
          body: { id: `${traceId}-g${i}`, traceId, name: 'llm', model: 'gpt-4o', startTime: iso(at), endTime: iso(at + ms) },
        },
      ];
    }).flat();
    expect((await send(stack, 'POST', '/api/v1/traces', { token: a.apiKey, body: { batch } })).status).toBe(201);
  };

  it('a p95 latency monitor goes from NO_DATA to ALERT on slow spans and back to OK when fast ones follow, with its history and audit', async () => {
    const monitor = await create(a, aSession, slowChat('slow chat'));
    expect(monitor).toMatchObject({ name: 'slow chat', state: null, value: null, evaluatedAt: null, enabled: true, scoreName: null });
    await stateOf(a, aSession, monitor.id, 'NO_DATA');

    await calls(5, 3000);
    const alerting = await stateOf(a, aSession, monitor.id, 'ALERT');
    expect(alerting.value).toBeGreaterThan(2500);
    expect(alerting.evaluatedAt).toEqual(expect.any(String));

    await calls(100, 20);
    const ok = await stateOf(a, aSession, monitor.id, 'OK');
    expect(ok.value).toBeLessThan(100);

    const history = data(await query(stack, aSession.access_token, 'monitor.history', { projectId: a.projectId, id: monitor.id }));
    expect(history.meta).toEqual({ nextCursor: null });
    expect(history.data.map((h: any) => [h.previousState, h.state])).toEqual([
      ['ALERT', 'OK'],
      ['NO_DATA', 'ALERT'],
      [null, 'NO_DATA'],
    ]);
    expect(history.data[1]).toMatchObject({
      threshold: 1000,
      comparison: '>',
      value: expect.any(Number),
      at: expect.any(String),
      windowStart: expect.any(String),
      windowEnd: expect.any(String),
    });

    const audited = await eventually(
      async () =>
        data(await query(stack, aSession.access_token, 'auditLog.list', { orgId: a.orgId })).data.filter(
          (e: any) => e.action === 'monitor.state_changed' && e.target === monitor.id,
        ),
      (events: any[]) => events.length === 3,
      30_000,
    );
    expect(audited.map((e: any) => e.details.to).sort()).toEqual(['ALERT', 'NO_DATA', 'OK']);

    const cli = await (
      await cliAs('monitors-a@spanlog.test')
    )(['alerts', 'history', '--project', a.projectId, '--id', monitor.id, '--json']);
    expect(cli.code === 0 ? JSON.parse(cli.stdout).data.map((h: any) => h.state) : cli.stderr).toEqual(['OK', 'ALERT', 'NO_DATA']);
  });

  it('keeps its state and history through a rebuild of every projection: no state the data never had', async () => {
    const monitor = await create(a, aSession, slowChat('slow chat, rebuilt'));
    const before = await stateOf(a, aSession, monitor.id, 'OK');
    const historyOf = async () =>
      data(await query(stack, aSession.access_token, 'monitor.history', { projectId: a.projectId, id: monitor.id })).data;
    expect((await historyOf()).map((h: any) => h.state)).toEqual(['OK']);

    // Rounds run every second throughout: while the tables are rebuilt, at the swap, and while every stats bucket is recounted.
    const rebuilt = await runCli(['rebuild', 'all', '--json'], stack.env);
    expect(rebuilt.code).toBe(0);
    const doneAt = Date.now();
    const marks = async () =>
      Number(
        (await stack.db.query('SELECT (SELECT count(*) FROM stats_5m_dirty) + (SELECT count(*) FROM model_stats_dirty) AS n')).rows[0].n,
      );
    await eventually(marks, (n) => n === 0, 60_000);
    const after = await eventually(
      () => monitorOf(a, aSession, monitor.id),
      (m) => Date.parse(m.evaluatedAt) > doneAt + 2_000,
      30_000,
    );

    expect(after).toMatchObject({ state: 'OK', value: before.value });
    expect((await historyOf()).map((h: any) => h.state)).toEqual(['OK']);
  }, 150_000);

  it('a score pass-rate monitor goes to ALERT on failing evaluator results', async () => {
    const evaluator = data(
      await mutate(stack, aSession.access_token, 'evaluator.create', { projectId: a.projectId, name: 'helpfulness', url: `${base}/judge` }),
    );
    const monitor = await create(a, aSession, {
      name: 'unhelpful answers',
      metric: 'score_pass_rate',
      scoreName: evaluator.name,
      windowSeconds: 600,
      comparison: '<',
      threshold: 0.5,
    });
    await stateOf(a, aSession, monitor.id, 'NO_DATA');
    const traceId = `mon-${randomUUID()}`;
    const at = iso(Date.now());
    const ingested = await send(stack, 'POST', '/api/v1/traces', {
      token: a.apiKey,
      body: {
        batch: [
          { id: randomUUID(), type: 'trace-create', timestamp: at, body: { id: traceId, name: 'support' } },
          {
            id: randomUUID(),
            type: 'span-create',
            timestamp: at,
            body: { id: `${traceId}-llm`, traceId, name: 'chat', type: 'LLM', startTime: at, input: 'refund?', output: 'no' },
          },
        ],
      },
    });
    expect(ingested.status).toBe(201);
    const alerting = await stateOf(a, aSession, monitor.id, 'ALERT');
    expect(alerting.value).toBe(0);
  });

  it('is NO_DATA on a quiet project, and the processor’s /metrics counts monitors per state', async () => {
    const monitor = await create(quiet, quietSession, {
      name: 'errors',
      metric: 'error_rate',
      windowSeconds: 600,
      comparison: '>',
      threshold: 0.1,
    });
    const calm = await create(quiet, quietSession, {
      name: 'no traffic',
      metric: 'calls',
      windowSeconds: 300,
      comparison: '<',
      threshold: 1,
    });
    await stateOf(quiet, quietSession, monitor.id, 'NO_DATA');
    await stateOf(quiet, quietSession, calm.id, 'ALERT');
    const { families } = await scrapeMetrics(stack.processorMetricsUrl);
    // Counts over every project of the stack: these two at least, and no label naming either.
    expect(metricValue(families, 'spanlog_monitors', { state: 'NO_DATA' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(families, 'spanlog_monitors', { state: 'ALERT' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(families, 'spanlog_monitor_evaluation_age_max_seconds')).toBeLessThan(60);
    const spanlog = await cliAs('monitors-quiet@spanlog.test');
    const listed = await spanlog(['alerts', 'list', '--project', quiet.projectId, '--json']);
    expect(
      listed.code === 0
        ? JSON.parse(listed.stdout)
            .map((m: any) => m.state)
            .sort()
        : listed.stderr,
    ).toEqual(['ALERT', 'NO_DATA']);
    const text = await spanlog(['alerts', 'list', '--project', quiet.projectId]);
    expect(text.stdout).toContain('error_rate > 0.1 over 10 min');
  });

  it('watches the spans of one operation, in any case (issue 26)', async () => {
    await calls(3, 20);
    const chat = await create(a, aSession, {
      name: 'chat calls',
      metric: 'calls',
      filter: { operation: 'Chat' },
      windowSeconds: 3600,
      comparison: '>',
      threshold: 0,
    });
    const tools = await create(a, aSession, {
      name: 'tool calls',
      metric: 'calls',
      filter: { operation: 'execute_tool', model: 'gpt-4o' },
      windowSeconds: 3600,
      comparison: '>',
      threshold: 0,
    });
    expect(chat.filter).toEqual({ operation: 'Chat' });
    expect((await stateOf(a, aSession, chat.id, 'ALERT')).value).toBeGreaterThanOrEqual(3);
    expect((await stateOf(a, aSession, tools.id, 'OK')).value).toBe(0);
    const bad = await mutate(stack, aSession.access_token, 'monitor.create', {
      projectId: a.projectId,
      name: 'x',
      metric: 'score_mean',
      scoreName: 'helpful',
      filter: { operation: 'chat' },
      windowSeconds: 300,
      comparison: '<',
      threshold: 1,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^input\.filter\.operation: does not apply/);
    const widened = data(
      await mutate(stack, aSession.access_token, 'monitor.update', { projectId: a.projectId, id: tools.id, filter: { model: 'gpt-4o' } }),
    );
    expect(widened.filter).toEqual({ model: 'gpt-4o' });
    expect((await stateOf(a, aSession, tools.id, 'ALERT')).value).toBeGreaterThanOrEqual(3);
    for (const m of [chat, tools]) await mutate(stack, aSession.access_token, 'monitor.delete', { projectId: a.projectId, id: m.id });
  });

  it('tells a team when a model arrives without a price: unpriced_spans, filterable like the others (issue 28)', async () => {
    const rule = { metric: 'unpriced_spans', windowSeconds: 3600, comparison: '>', threshold: 0 };
    const unpriced = await create(a, aSession, { ...rule, name: 'unpriced usage' });
    const priced = await create(a, aSession, { ...rule, name: 'unpriced gpt-4o', filter: { model: 'gpt-4o' } });
    expect((await stateOf(a, aSession, unpriced.id, 'OK')).value).toBe(0);
    const at = Date.now() - 60_000;
    const traceId = `mon-${randomUUID()}`;
    const generation = (id: string, model: string) => ({
      id: randomUUID(),
      type: 'generation-create',
      timestamp: iso(at),
      body: { id, traceId, name: 'llm', model, startTime: iso(at), endTime: iso(at + 5), usage: { input: 10, output: 2 } },
    });
    const batch = [generation(`${traceId}-new`, 'acme-brand-new-1'), generation(`${traceId}-known`, 'gpt-4o')];
    expect((await send(stack, 'POST', '/api/v1/traces', { token: a.apiKey, body: { batch } })).status).toBe(201);
    expect((await stateOf(a, aSession, unpriced.id, 'ALERT')).value).toBe(1);
    expect((await stateOf(a, aSession, priced.id, 'OK')).value).toBe(0);
    for (const m of [unpriced, priced]) await mutate(stack, aSession.access_token, 'monitor.delete', { projectId: a.projectId, id: m.id });
  });

  it('updates and deletes monitors, refusing bad fields with a 400 naming them, and others’ projects with a 403', async () => {
    const monitor = await create(a, aSession, { name: 'cost', metric: 'cost', windowSeconds: 86_400, comparison: '>', threshold: 10 });
    const bad = await mutate(stack, aSession.access_token, 'monitor.create', {
      projectId: a.projectId,
      name: 'x',
      metric: 'latency_p95',
      windowSeconds: 60,
      comparison: '>',
      threshold: 1,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^input\.windowSeconds: /);
    const updated = data(
      await mutate(stack, aSession.access_token, 'monitor.update', {
        projectId: a.projectId,
        id: monitor.id,
        threshold: 20,
        name: 'daily cost',
      }),
    );
    expect(updated).toMatchObject({ id: monitor.id, name: 'daily cost', threshold: 20, metric: 'cost', windowSeconds: 86_400 });
    const badUpdate = await mutate(stack, aSession.access_token, 'monitor.update', {
      projectId: a.projectId,
      id: monitor.id,
      metric: 'score_mean',
    });
    expect(badUpdate.status).toBe(400);
    expect(badUpdate.body.error.message).toBe('input.scoreName: is required for the metric score_mean');
    expect((await query(stack, quietSession.access_token, 'monitor.list', { projectId: a.projectId })).status).toBe(403);
    expect((await mutate(stack, quietSession.access_token, 'monitor.delete', { projectId: a.projectId, id: monitor.id })).status).toBe(403);
    expect(data(await mutate(stack, aSession.access_token, 'monitor.delete', { projectId: a.projectId, id: monitor.id }))).toEqual({
      id: monitor.id,
      deleted: true,
    });
    expect((await mutate(stack, aSession.access_token, 'monitor.delete', { projectId: a.projectId, id: monitor.id })).status).toBe(404);
    expect((await query(stack, aSession.access_token, 'monitor.history', { projectId: a.projectId, id: monitor.id })).status).toBe(404);
  });
});
