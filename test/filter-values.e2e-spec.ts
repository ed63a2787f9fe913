import { randomBytes, randomUUID } from 'node:crypto';
import { type Session, type Tenant, bootstrap, data, eventually, login, query, send } from './support/api';
import { OTLP_TRACES, write } from './support/ingest';
import { type Stack, startStack } from './support/stack';

/** RPC `trace.filterValues` and the list's case rules: what the dashboard's filter pickers read. */
describe('filter pickers (trace.filterValues)', () => {
  let stack: Stack;
  let a: Tenant;
  let b: Tenant;
  let aSession: Session;
  let bSession: Session;
  const run = randomUUID().slice(0, 8);

  beforeAll(async () => {
    stack = await startStack();
    a = await bootstrap(stack, `fv-a-${run}@spanlog.test`, 'FV A', 'project a');
    b = await bootstrap(stack, `fv-b-${run}@spanlog.test`, 'FV B', 'project b');
    aSession = await login(stack, `fv-a-${run}@spanlog.test`);
    bSession = await login(stack, `fv-b-${run}@spanlog.test`);
    const at = new Date().toISOString();
    const traceId = `fv-${run}`;
    const users = Array.from({ length: 60 }, (_, i) => ({
      id: randomUUID(),
      type: 'trace-create',
      timestamp: at,
      body: { id: `fv-${run}-u${i}`, name: 'bulk', userId: `user-${i}` },
    }));
    const batch = [
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: at,
        body: { id: traceId, name: 'Chat Turn', tags: ['Beta', 'prod'], userId: 'Alice', sessionId: 'sess-1', environment: 'staging' },
      },
      {
        id: randomUUID(),
        type: 'generation-create',
        timestamp: at,
        body: { id: `${traceId}-g`, traceId, name: 'llm', model: 'GPT-4o-Mini', startTime: at, endTime: at },
      },
      {
        id: randomUUID(),
        type: 'span-create',
        timestamp: at,
        body: { id: `${traceId}-t`, traceId, name: 'weather', type: 'TOOL', startTime: at, endTime: at },
      },
      ...users,
    ];
    expect((await send(stack, 'POST', '/api/v1/traces', { token: a.apiKey, body: { batch } })).status).toBe(201);
    const other = [
      {
        id: randomUUID(),
        type: 'generation-create',
        timestamp: at,
        body: { id: `fvb-${run}-g`, traceId: `fvb-${run}`, name: 'x', model: 'claude-secret', startTime: at, endTime: at },
      },
    ];
    expect((await send(stack, 'POST', '/api/v1/traces', { token: b.apiKey, body: { batch: other } })).status).toBe(201);
  }, 120_000);

  afterAll(() => stack?.stop());

  const values = (input: Record<string, unknown>, session = aSession, projectId = a.projectId) =>
    query(stack, session.access_token, 'trace.filterValues', { projectId, ...input });

  it('answers a span dimension’s known values from the stats, matched in any case, only the project’s', async () => {
    const models = await eventually(
      async () => data(await values({ field: 'model' })),
      (v: any) => v.data.length > 0,
      30_000,
    );
    expect(models).toEqual({ data: ['GPT-4o-Mini'] });
    expect(data(await values({ field: 'model', prefix: '4o-mi' }))).toEqual({ data: ['GPT-4o-Mini'] });
    expect(data(await values({ field: 'model', prefix: 'claude' }))).toEqual({ data: [] });
    expect(data(await values({ field: 'spanType', prefix: 'll' }))).toEqual({ data: ['LLM'] });
  });

  it('answers a trace field’s values newest first, bounded, with a part of the value in any case', async () => {
    await eventually(
      async () => data(await values({ field: 'userId', limit: 50 })),
      (v: any) => v.data.length === 50,
    );
    expect(data(await values({ field: 'userId', prefix: 'ALI' }))).toEqual({ data: ['Alice'] });
    expect(data(await values({ field: 'userId' })).data).toHaveLength(20);
    expect(data(await values({ field: 'tags', prefix: 'bE' }))).toEqual({ data: ['Beta'] });
    expect(data(await values({ field: 'name', prefix: 'chat' }))).toEqual({ data: ['Chat Turn'] });
    expect(data(await values({ field: 'sessionId' }))).toEqual({ data: ['sess-1'] });
    expect(data(await values({ field: 'environment' })).data).toContain('staging');
  });

  it('filters the list by span type and name in any case', async () => {
    const list = (input: Record<string, unknown>) =>
      query(stack, aSession.access_token, 'trace.list', { projectId: a.projectId, ...input });
    const byType = await eventually(
      async () => data(await list({ spanType: 'llm' })),
      (p: any) => p.data.length === 1,
    );
    expect(byType.data[0].externalId).toBe(`fv-${run}`);
    expect(data(await list({ name: 'chat turn' })).data.map((t: any) => t.externalId)).toEqual([`fv-${run}`]);
    const rest = await send(stack, 'GET', '/api/v1/traces?spanType=llm&name=CHAT%20TURN', { token: a.apiKey });
    expect(rest.body.data.map((t: any) => t.externalId)).toEqual([`fv-${run}`]);
  });

  it('offers the spans’ operations and filters the list by one in any case (issue 26)', async () => {
    const operations = await eventually(
      async () => data(await values({ field: 'operation' })),
      (v: any) => v.data.length === 2,
      30_000,
    );
    expect([...operations.data].sort()).toEqual(['chat', 'execute_tool']);
    expect(data(await values({ field: 'operation', prefix: 'TOOL' }))).toEqual({ data: ['execute_tool'] });
    const list = (input: Record<string, unknown>) =>
      query(stack, aSession.access_token, 'trace.list', { projectId: a.projectId, ...input });
    expect(data(await list({ operation: 'Execute_Tool' })).data.map((t: any) => t.externalId)).toEqual([`fv-${run}`]);
    expect(data(await list({ operation: 'invoke_agent' })).data).toEqual([]);
    const rest = await send(stack, 'GET', '/api/v1/traces?operation=EXECUTE_TOOL', { token: a.apiKey });
    expect(rest.body.data.map((t: any) => t.externalId)).toEqual([`fv-${run}`]);
  });

  it('stores a trace whose name is longer than a name index row can hold', async () => {
    // 32,000 random characters (Postgres compresses a repetitive one into an index row), as an
    // OTLP root span may name its trace: the name index once held the whole name, and Postgres
    // refused every insert of such a trace (the fuzz suite dead-lettered it).
    const name = `Long ${randomBytes(24_000).toString('base64')}`;
    const traceId = randomUUID().replace(/-/g, '');
    const nanos = `${Date.now()}000000`;
    const body = {
      resourceSpans: [
        { scopeSpans: [{ spans: [{ traceId, spanId: traceId.slice(0, 16), name, startTimeUnixNano: nanos, endTimeUnixNano: nanos }] }] },
      ],
    };
    const posted = await write(stack, a.apiKey, OTLP_TRACES, body);
    expect(posted.status).toBe(200);
    const read = await send(stack, 'GET', `/api/v1/traces/${traceId}?minSeq=${posted.seq}`, { token: a.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.name).toBe(name);
  });

  it('refuses another project’s caller with 403 and a bad field or limit with 400 naming it', async () => {
    expect((await values({ field: 'model' }, bSession)).status).toBe(403);
    const badField = await values({ field: 'password' });
    expect(badField.status).toBe(400);
    expect(badField.body.error.message).toContain('field: must be one of');
    const badLimit = await values({ field: 'model', limit: 51 });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.message).toContain('limit: must be an integer from 1 to 50');
    expect((await values({ field: 'model' }, bSession, b.projectId)).status).toBe(200);
  });
});
