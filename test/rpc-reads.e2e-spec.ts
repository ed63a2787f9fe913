import { randomUUID } from 'node:crypto';
import { type Session, type Tenant, bootstrap, data, eventually, login, query, send } from './support/api';
import { type Stack, startStack } from './support/stack';

/** RPC `trace.*` and `prompt.*`: what the dashboard and the terminal UI read with a session. */
describe('dashboard RPC reads (trace.*, prompt.*)', () => {
  let stack: Stack;
  let a: Tenant;
  let aSession: Session;
  let bSession: Session;
  const traceId = `reads-${randomUUID()}`;
  const otherId = `reads-${randomUUID()}`;

  beforeAll(async () => {
    stack = await startStack();
    a = await bootstrap(stack, 'reads-a@spanlog.test', 'Reads A', 'project a', 'pro');
    await bootstrap(stack, 'reads-b@spanlog.test', 'Reads B', 'project b');
    aSession = await login(stack, 'reads-a@spanlog.test');
    bSession = await login(stack, 'reads-b@spanlog.test');
    const at = new Date().toISOString();
    const ingested = await send(stack, 'POST', '/api/v1/traces', {
      token: a.apiKey,
      body: {
        batch: [
          {
            id: randomUUID(),
            type: 'trace-create',
            timestamp: at,
            body: { id: traceId, name: 'chat', tags: ['a,b', 'prod'], userId: 'u1' },
          },
          {
            id: randomUUID(),
            type: 'generation-create',
            timestamp: at,
            body: { id: `${traceId}-g`, traceId, name: 'llm', model: 'gpt-4o', startTime: at, endTime: at, usage: { input: 3, output: 4 } },
          },
          { id: randomUUID(), type: 'trace-create', timestamp: at, body: { id: otherId, name: 'other', tags: ['prod'] } },
        ],
      },
    });
    expect(ingested.status).toBe(201);
    for (const [name, value] of [
      ['helpful', 1],
      ['helpful', 0.5],
      ['tone', true],
    ] as const) {
      expect((await send(stack, 'POST', '/api/v1/scores', { token: a.apiKey, body: { traceId, name, value } })).status).toBe(201);
    }
    for (const template of ['v1 {{x}}', 'v2 {{x}}']) {
      expect(
        (
          await send(stack, 'POST', '/api/v1/prompt-templates', {
            token: a.apiKey,
            body: { name: 'greet', template, labels: ['production'] },
          })
        ).status,
      ).toBe(201);
    }
  }, 120_000);

  afterAll(() => stack?.stop());

  const listTraces = (input: Record<string, unknown>, session = aSession) =>
    query(stack, session.access_token, 'trace.list', { projectId: a.projectId, ...input });

  it('lists traces with the REST filters, tags as a list, and each trace’s scores summed up by name and source', async () => {
    const page = await eventually(
      async () => data(await listTraces({ tags: ['a,b'] })),
      (p: any) => p.data.length === 1 && p.data[0].scores.length === 2,
    );
    expect(page.meta).toEqual({ nextCursor: null });
    expect(page.data[0]).toMatchObject({
      externalId: traceId,
      name: 'chat',
      tags: ['a,b', 'prod'],
      userId: 'u1',
      spanCount: 1,
      totalTokens: 7,
    });
    expect(page.data[0].scores).toEqual([
      { name: 'helpful', source: 'API', value: 0.75, count: 2 },
      { name: 'tone', source: 'API', value: 1, count: 1 },
    ]);
    const rest = await send(stack, 'GET', `/api/v1/traces?tags=prod`, { token: a.apiKey });
    expect(data(await listTraces({ tags: ['prod'] })).data).toEqual(rest.body.data);
    expect(data(await listTraces({ scoreName: 'helpful', minScore: 0.7 })).data.map((t: any) => t.externalId)).toEqual([traceId]);
    expect(data(await listTraces({ model: 'gpt-4o' })).data.map((t: any) => t.externalId)).toEqual([traceId]);
    const first = data(await listTraces({ tags: ['prod'], limit: 1 }));
    const second = data(await listTraces({ tags: ['prod'], limit: 1, cursor: first.meta.nextCursor }));
    expect([...first.data, ...second.data].map((t: any) => t.externalId).sort()).toEqual([traceId, otherId].sort());
  });

  it('reads one trace as GET /api/v1/traces/:id does, by its id or the client’s', async () => {
    const rest = await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: a.apiKey });
    expect(rest.status).toBe(200);
    const viaRpc = data(await query(stack, aSession.access_token, 'trace.get', { projectId: a.projectId, id: traceId }));
    expect(viaRpc).toEqual(rest.body);
    expect(data(await query(stack, aSession.access_token, 'trace.get', { projectId: a.projectId, id: rest.body.id })).id).toBe(
      rest.body.id,
    );
    const missing = await query(stack, aSession.access_token, 'trace.get', { projectId: a.projectId, id: randomUUID() });
    expect(missing.status).toBe(404);
  });

  it('lists prompt templates and one name’s versions newest first, with their labels', async () => {
    expect(data(await query(stack, aSession.access_token, 'prompt.list', { projectId: a.projectId }))).toEqual({
      data: [{ name: 'greet', latestVersion: 2, labels: ['latest', 'production'], updatedAt: expect.any(String) }],
      meta: { nextCursor: null },
    });
    const versions = data(await query(stack, aSession.access_token, 'prompt.versions', { projectId: a.projectId, name: 'greet' }));
    expect(versions.data.map((v: any) => [v.version, v.template, v.labels])).toEqual([
      [2, 'v2 {{x}}', ['latest', 'production']],
      [1, 'v1 {{x}}', []],
    ]);
    expect(versions.meta).toEqual({ nextCursor: null });
    expect((await query(stack, aSession.access_token, 'prompt.versions', { projectId: a.projectId, name: 'nope' })).status).toBe(404);
  });

  it('refuses another organization’s member with 403 and bad input with 400 naming the field', async () => {
    expect((await listTraces({}, bSession)).status).toBe(403);
    expect((await query(stack, bSession.access_token, 'trace.get', { projectId: a.projectId, id: traceId })).status).toBe(403);
    expect((await query(stack, bSession.access_token, 'prompt.list', { projectId: a.projectId })).status).toBe(403);
    const cases: [string, Record<string, unknown>, string][] = [
      ['trace.list', { projectId: a.projectId, tags: 'prod' }, 'tags'],
      ['trace.list', { projectId: a.projectId, limit: 101 }, 'limit'],
      ['trace.list', { projectId: a.projectId, fromTimestamp: 'yesterday' }, 'fromTimestamp'],
      ['trace.list', { projectId: a.projectId, name: 'a\u0000b' }, 'name'],
      ['trace.list', { projectId: 'nope' }, 'projectId'],
      ['prompt.versions', { projectId: a.projectId, name: 'greet', cursor: 'x' }, 'cursor'],
      ['prompt.list', { projectId: a.projectId, cursor: 'x' }, 'cursor'],
    ];
    for (const [procedure, input, field] of cases) {
      const answer = await query(stack, aSession.access_token, procedure, input);
      expect([procedure, answer.status]).toEqual([procedure, 400]);
      expect(answer.body.error.message).toContain(field);
    }
  });
});
