import { randomUUID } from 'node:crypto';
import { type Session, type Tenant, bootstrap, data, login, query, send } from './support/api';
import { NATIVE_TRACES, SCORES, write } from './support/ingest';
import { type Stack, startStack } from './support/stack';

/** GET /api/v1/sessions, /api/v1/sessions/:id, /api/v1/users and RPC traceSession.* / traceUser.* (issue 26). */
describe('sessions and users reads', () => {
  let stack: Stack;
  let a: Tenant;
  let b: Tenant;
  let aSession: Session;
  let bSession: Session;
  let seq: string;
  const run = randomUUID().slice(0, 8);
  const alpha = `Conv-Alpha-${run}`;
  const beta = `conv-beta-${run}`;
  const paged = Array.from({ length: 7 }, (_, i) => `paged-${i}-${run}`);
  const t0 = Date.parse('2026-03-01T10:00:00Z');
  const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();

  /** A trace with one generation (tokens and cost) in a session, for a user, in an environment. */
  function traceEvents(id: string, sessionId: string, userId: string, environment: string, minute: number, tokens: number, cost: number) {
    return [
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: at(minute),
        body: {
          id,
          name: `turn ${id}`,
          sessionId,
          userId,
          environment,
          timestamp: at(minute),
          input: { messages: [{ role: 'user', content: `question ${id}` }] },
          output: { role: 'assistant', content: `answer ${id}` },
        },
      },
      {
        id: randomUUID(),
        type: 'generation-create',
        timestamp: at(minute),
        body: {
          id: `${id}-g`,
          traceId: id,
          name: 'llm',
          model: 'gpt-4o',
          startTime: at(minute),
          endTime: new Date(t0 + minute * 60_000 + 2_000).toISOString(),
          usage: { input: tokens, output: 0 },
          cost,
        },
      },
    ];
  }

  beforeAll(async () => {
    stack = await startStack();
    a = await bootstrap(stack, 'groups-a@spanlog.test', 'Groups A', 'project a', 'pro');
    b = await bootstrap(stack, 'groups-b@spanlog.test', 'Groups B', 'project b');
    aSession = await login(stack, 'groups-a@spanlog.test');
    bSession = await login(stack, 'groups-b@spanlog.test');
    const batch = [
      ...traceEvents(`${alpha}-1`, alpha, 'alice', 'prod', 0, 10, 0.5),
      ...traceEvents(`${alpha}-2`, alpha, 'alice', 'prod', 1, 20, 0.25),
      ...traceEvents(`${alpha}-3`, alpha, 'alice', 'prod', 2, 30, 0.25),
      ...traceEvents(`${beta}-1`, beta, 'bob', 'dev', 10, 5, 0.1),
      ...traceEvents(`${beta}-2`, beta, 'alice', 'dev', 11, 5, 0.1),
      ...paged.flatMap((s, i) => traceEvents(`${s}-1`, s, `user-${i}`, 'prod', 20 + i, 1, 0)),
      { id: randomUUID(), type: 'trace-create', timestamp: at(40), body: { id: `no-session-${run}`, name: 'alone', timestamp: at(40) } },
    ];
    const sent = await write(stack, a.apiKey, NATIVE_TRACES, { batch });
    expect(sent.status).toBe(201);
    const scored = await send(stack, 'POST', '/api/v1/scores', {
      token: a.apiKey,
      body: {
        scores: [
          { traceId: `${alpha}-1`, name: 'helpful', value: 1 },
          { traceId: `${alpha}-3`, name: 'helpful', value: 0 },
        ],
      },
    });
    expect(scored.status).toBe(201);
    // The same session id in another project is another session.
    expect(
      (await write(stack, b.apiKey, NATIVE_TRACES, { batch: traceEvents(`other-${run}`, alpha, 'alice', 'prod', 0, 1, 0) })).status,
    ).toBe(201);
    // The last write's token: a read at it sees every request before it (one stream, in order).
    const last = await write(stack, a.apiKey, SCORES, { traceId: `${beta}-1`, name: 'tone', value: true });
    expect(last.status).toBe(201);
    seq = last.seq as string;
  }, 120_000);

  afterAll(() => stack?.stop());

  const get = (path: string, token = a.apiKey) => send(stack, 'GET', path, { token });

  it('lists a project’s sessions, the most recently active first, each with its totals and scores', async () => {
    const res = await get(`/api/v1/sessions?minSeq=${seq}&limit=100`);
    expect(res.status).toBe(200);
    const ids = res.body.data.map((s: any) => s.id);
    expect(ids).toEqual([...[...paged].reverse(), beta, alpha]);
    expect(res.body.meta).toEqual({ nextCursor: null });
    const session = res.body.data.find((s: any) => s.id === alpha);
    expect(session).toEqual({
      id: alpha,
      firstTraceAt: at(0),
      lastTraceAt: at(2),
      traceCount: 3,
      spanCount: 3,
      durationMs: 122_000,
      totalTokens: 60,
      totalCost: 1,
      userIds: ['alice'],
      scores: [{ name: 'helpful', source: 'API', value: 0.5, count: 2 }],
    });
    expect(res.body.data.find((s: any) => s.id === beta).userIds).toEqual(['alice', 'bob']);
  });

  it('pages with an opaque cursor, each session once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/v1/sessions?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((s: any) => s.id));
      cursor = res.body.meta.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...[...paged].reverse(), beta, alpha]);
  });

  it('filters by user, environment, time range and part of the id in any case', async () => {
    const ids = async (q: string) => (await get(`/api/v1/sessions?${q}`)).body.data.map((s: any) => s.id);
    expect(await ids('userId=alice')).toEqual([beta, alpha]);
    expect(await ids('environment=dev')).toEqual([beta]);
    expect(await ids(`id=${encodeURIComponent('CONV-')}`)).toEqual([beta, alpha]);
    expect(await ids(`id=alpha-${run}`)).toEqual([alpha]);
    expect(await ids(`fromTimestamp=${at(1)}&toTimestamp=${at(10)}`)).toEqual([beta, alpha]);
    expect(await ids(`fromTimestamp=${at(3)}&toTimestamp=${at(9)}`)).toEqual([]);
  });

  it('reads one session: its totals and its traces in time order with their input and output, paged', async () => {
    const first = await get(`/api/v1/sessions/${encodeURIComponent(alpha)}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: alpha,
      traceCount: 3,
      totalTokens: 60,
      totalCost: 1,
      scores: [{ name: 'helpful', value: 0.5, count: 2 }],
    });
    expect(first.body.traces.map((t: any) => t.externalId)).toEqual([`${alpha}-1`, `${alpha}-2`]);
    expect(first.body.traces[0]).toMatchObject({
      sessionId: alpha,
      userId: 'alice',
      input: { messages: [{ role: 'user', content: `question ${alpha}-1` }] },
      output: { content: `answer ${alpha}-1` },
      totalTokens: 10,
    });
    expect(first.body.traces[0].scores).toEqual([{ name: 'helpful', source: 'API', value: 1, count: 1 }]);
    const second = await get(`/api/v1/sessions/${encodeURIComponent(alpha)}?limit=2&cursor=${first.body.meta.nextCursor}`);
    expect(second.body.traces.map((t: any) => t.externalId)).toEqual([`${alpha}-3`]);
    expect(second.body.meta.nextCursor).toBeNull();
  });

  it('answers 404 NOT_FOUND for a session the project does not have, also another project’s', async () => {
    // The longest id ingestion takes, percent-encoded (3 bytes a character): not a 414 from the router.
    for (const id of [`missing-${run}`, '€'.repeat(256)]) {
      const res = await get(`/api/v1/sessions/${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const other = await get(`/api/v1/sessions/${encodeURIComponent(alpha)}`, b.apiKey);
    expect(other.status).toBe(200);
    expect(other.body.traceCount).toBe(1);
    expect((await get(`/api/v1/sessions/${encodeURIComponent(beta)}`, b.apiKey)).status).toBe(404);
  });

  it('lists users with their traces, sessions, tokens, cost, first and last seen and scores', async () => {
    const res = await get('/api/v1/users?limit=100');
    expect(res.status).toBe(200);
    const alice = res.body.data.find((u: any) => u.id === 'alice');
    expect(alice).toEqual({
      id: 'alice',
      firstTraceAt: at(0),
      lastTraceAt: at(11),
      traceCount: 4,
      sessionCount: 2,
      spanCount: 4,
      durationMs: 11 * 60_000 + 2_000,
      totalTokens: 65,
      totalCost: 1.1,
      scores: [{ name: 'helpful', source: 'API', value: 0.5, count: 2 }],
    });
    expect(res.body.data.map((u: any) => u.id)).toEqual([
      'user-6',
      'user-5',
      'user-4',
      'user-3',
      'user-2',
      'user-1',
      'user-0',
      'alice',
      'bob',
    ]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await get(`/api/v1/users?limit=4&environment=prod${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.data.map((u: any) => u.id));
      cursor = page.body.meta.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['user-6', 'user-5', 'user-4', 'user-3', 'user-2', 'user-1', 'user-0', 'alice']);
    expect((await get('/api/v1/users?id=BO')).body.data.map((u: any) => u.id)).toEqual(['bob']);
  });

  it.each([
    ['/api/v1/sessions?limit=0', 'limit: must be an integer from 1 to 100'],
    ['/api/v1/sessions?limit=101', 'limit: must be an integer from 1 to 100'],
    ['/api/v1/sessions?cursor=bogus', 'cursor: not a cursor returned by this endpoint'],
    ['/api/v1/sessions?fromTimestamp=soon', 'fromTimestamp: must be an ISO 8601 timestamp'],
    ['/api/v1/sessions?userId=a&userId=b', 'userId: must be a string'],
    ['/api/v1/sessions/x?limit=abc', 'limit: must be an integer from 1 to 100'],
    ['/api/v1/users?environment=%00', 'environment: must be a string'],
    ['/api/v1/users?minSeq=nope', 'minSeq: not a Spanlog-Seq token'],
  ])('answers 400 VALIDATION_ERROR naming the field: %s', async (path, message) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain(message);
  });

  it('needs the project’s API key and is rate limited as the trace reads', async () => {
    for (const path of ['/api/v1/sessions', `/api/v1/sessions/${alpha}`, '/api/v1/users']) {
      expect((await send(stack, 'GET', path)).status).toBe(401);
      expect((await send(stack, 'GET', path, { token: 'sl_nope' })).status).toBe(401);
      expect((await send(stack, 'GET', path, { token: aSession.access_token })).status).toBe(401);
      const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${a.apiKey}` } });
      expect(res.headers.get('ratelimit-limit')).toBe('1000');
    }
  });

  it('RPC traceSession.* and traceUser.* answer what REST answers, for members only', async () => {
    const rpc = (procedure: string, input: Record<string, unknown>, session = aSession) =>
      query(stack, session.access_token, procedure, { projectId: a.projectId, ...input });
    expect(data(await rpc('traceSession.list', { limit: 100 }))).toEqual((await get('/api/v1/sessions?limit=100')).body);
    expect(data(await rpc('traceSession.get', { id: alpha, limit: 2 }))).toEqual(
      (await get(`/api/v1/sessions/${encodeURIComponent(alpha)}?limit=2`)).body,
    );
    expect(data(await rpc('traceUser.list', { environment: 'dev' }))).toEqual((await get('/api/v1/users?environment=dev')).body);
    const alice = data(await rpc('traceUser.get', { id: 'alice' }));
    expect(alice).toMatchObject({ id: 'alice', traceCount: 4, sessionCount: 2, totalTokens: 65 });
    const missing = await rpc('traceUser.get', { id: `nobody-${run}` });
    expect(missing.status).toBe(404);
    const bad = await rpc('traceSession.list', { limit: 500 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('limit: must be an integer from 1 to 100');
    expect((await rpc('traceSession.list', {}, bSession)).status).toBe(403);
  });
});
