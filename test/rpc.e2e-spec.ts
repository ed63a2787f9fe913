import { randomUUID } from 'node:crypto';
import { type Session, type Tenant, bootstrap, createUser, data, eventually, login, mutate, query, send, setPlan, smallBatch } from './support/api';
import { type Stack, startStack } from './support/stack';

// The audit log is projected from a stream, so two tests poll for it (up to 15 s each).

interface AuditPage {
  data: { id: string; action: string; actorUserId: string | null; target: string | null; details: Record<string, unknown>; createdAt: string }[];
  meta: { nextCursor: string | null };
}

describe('dashboard RPC (/api/trpc/*)', () => {
  let stack: Stack;
  let a: Tenant;
  let b: Tenant;
  let aSession: Session;
  let bSession: Session;
  const extra = { member: 'member@spanlog.test', admin: 'admin@spanlog.test', third: 'third@spanlog.test', fourth: 'fourth@spanlog.test' };

  /** A fresh organization owned by A, so no test depends on what another did to a shared one. */
  const newOrg = async (plan = 'free'): Promise<string> => {
    const org = data(await mutate(stack, aSession.access_token, 'organization.create', { name: `org ${randomUUID()}` }));
    if (plan !== 'free') await setPlan(stack, org.id, plan);
    return org.id as string;
  };

  const ingest = (apiKey: string) => send(stack, 'POST', '/api/v1/traces', { token: apiKey, body: smallBatch(`rpc-${randomUUID()}`) });

  beforeAll(async () => {
    stack = await startStack();
    a = await bootstrap(stack, 'a@spanlog.test', 'Org A', 'project a');
    b = await bootstrap(stack, 'b@spanlog.test', 'Org B', 'project b');
    for (const email of Object.values(extra)) await createUser(stack, email);
    aSession = await login(stack, 'a@spanlog.test');
    bSession = await login(stack, 'b@spanlog.test');
  }, 120_000);

  afterAll(() => stack?.stop());

  it('shows a user only the organizations they belong to, with plan and role', async () => {
    expect(data(await query(stack, aSession.access_token, 'user.me'))).toEqual({ id: a.userId, email: 'a@spanlog.test' });
    expect(data(await query(stack, bSession.access_token, 'organization.list'))).toEqual([{ id: b.orgId, name: 'Org B', plan: 'free', role: 'owner' }]);
    const mine = data<{ id: string }[]>(await query(stack, aSession.access_token, 'organization.list'));
    expect(mine).toContainEqual({ id: a.orgId, name: 'Org A', plan: 'free', role: 'owner' });
    expect(mine.map((o) => o.id)).not.toContain(b.orgId);
  });

  it('creates organizations owned by their creator, and projects with unique names in them', async () => {
    const org = data(await mutate(stack, aSession.access_token, 'organization.create', { name: 'Created' }));
    expect(org).toEqual({ id: expect.any(String), name: 'Created', plan: 'free', role: 'owner' });
    const project = data(await mutate(stack, aSession.access_token, 'project.create', { orgId: org.id, name: 'web' }));
    expect(project).toEqual({ id: expect.any(String), name: 'web', orgId: org.id });
    expect(data(await query(stack, aSession.access_token, 'project.list', { orgId: org.id }))).toEqual([project]);
    const duplicate = await mutate(stack, aSession.access_token, 'project.create', { orgId: org.id, name: 'web' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
  });

  it('makes a key that ingests, lists it without its secret, and refuses it once revoked', async () => {
    const created = data(await mutate(stack, aSession.access_token, 'apiKey.create', { projectId: a.projectId, name: 'sdk' }));
    expect(created).toEqual({ id: expect.any(String), name: 'sdk', prefix: expect.any(String), apiKey: expect.stringMatching(/^sl_/), createdAt: expect.any(String) });
    expect(created.apiKey.startsWith(created.prefix)).toBe(true);

    const accepted = await ingest(created.apiKey);
    expect(accepted).toEqual({ status: 201, body: { accepted: 2, errors: [] } });

    const listed = await eventually(
      async () => data<any[]>(await query(stack, aSession.access_token, 'apiKey.list', { projectId: a.projectId })).find((k) => k.id === created.id),
      (key) => key?.lastUsedAt !== null,
    );
    expect(listed).toEqual({ id: created.id, name: 'sdk', prefix: created.prefix, createdAt: created.createdAt, lastUsedAt: expect.any(String), revokedAt: null });

    expect(data(await mutate(stack, aSession.access_token, 'apiKey.revoke', { projectId: a.projectId, id: created.id }))).toEqual({ id: created.id, revoked: true });
    const refused = await ingest(created.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const after = data<any[]>(await query(stack, aSession.access_token, 'apiKey.list', { projectId: a.projectId })).find((k) => k.id === created.id);
    expect(after.revokedAt).toEqual(expect.any(String));
    expect((await mutate(stack, aSession.access_token, 'apiKey.revoke', { projectId: a.projectId, id: randomUUID() })).status).toBe(404);
  });

  it("keeps organizations apart: a member of A can neither read nor change B's projects, keys or members", async () => {
    const token = aSession.access_token;
    for (const [procedure, input] of [
      ['project.list', { orgId: b.orgId }],
      ['apiKey.list', { projectId: b.projectId }],
      ['member.list', { orgId: b.orgId }],
      ['auditLog.list', { orgId: b.orgId }],
    ] as const) {
      const res = await query(stack, token, procedure, input);
      expect({ procedure, status: res.status, code: res.body.error?.data?.code }).toEqual({ procedure, status: 403, code: 'FORBIDDEN' });
    }
    for (const [procedure, input] of [
      ['project.create', { orgId: b.orgId, name: 'intruder' }],
      ['apiKey.create', { projectId: b.projectId, name: 'intruder' }],
      ['apiKey.revoke', { projectId: b.projectId, id: b.apiKeyId }],
      ['member.add', { orgId: b.orgId, email: 'a@spanlog.test', role: 'owner' }],
      ['member.remove', { orgId: b.orgId, userId: b.userId }],
    ] as const) {
      const res = await mutate(stack, token, procedure, input);
      expect({ procedure, status: res.status }).toEqual({ procedure, status: 403 });
    }
    expect((await ingest(b.apiKey)).status).toBe(201);
  });

  it('enforces seats per plan when a member is added: Free has 1, Pro 3', async () => {
    const free = await newOrg();
    const refused = await mutate(stack, aSession.access_token, 'member.add', { orgId: free, email: extra.member, role: 'member' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ message: expect.stringMatching(/free plan allows 1 seat/), data: { code: 'FORBIDDEN' } });
    expect(data<unknown[]>(await query(stack, aSession.access_token, 'member.list', { orgId: free }))).toHaveLength(1);

    const pro = await newOrg('pro');
    for (const email of [extra.member, extra.admin]) {
      expect(data(await mutate(stack, aSession.access_token, 'member.add', { orgId: pro, email, role: 'member' }))).toMatchObject({ email, role: 'member' });
    }
    const fourth = await mutate(stack, aSession.access_token, 'member.add', { orgId: pro, email: extra.third, role: 'member' });
    expect(fourth.status).toBe(403);
    expect(fourth.body.error.message).toMatch(/pro plan allows 3 seats/);
    const members = data<{ email: string; role: string }[]>(await query(stack, aSession.access_token, 'member.list', { orgId: pro }));
    expect(members.map((m) => [m.email, m.role])).toEqual([
      ['a@spanlog.test', 'owner'],
      [extra.member, 'member'],
      [extra.admin, 'member'],
    ]);
  });

  it('checks roles: a member reads but cannot manage, an admin manages but cannot make or remove owners', async () => {
    const org = await newOrg('growth');
    const project = data(await mutate(stack, aSession.access_token, 'project.create', { orgId: org, name: 'roles' }));
    const add = (token: string, email: string, role: string) => mutate(stack, token, 'member.add', { orgId: org, email, role });
    const memberId = data(await add(aSession.access_token, extra.member, 'member')).userId as string;
    data(await add(aSession.access_token, extra.admin, 'admin'));
    const member = (await login(stack, extra.member)).access_token;
    const admin = (await login(stack, extra.admin)).access_token;

    expect(data(await query(stack, member, 'project.list', { orgId: org }))).toEqual([project]);
    expect((await query(stack, member, 'apiKey.list', { projectId: project.id })).status).toBe(200);
    expect((await mutate(stack, member, 'apiKey.create', { projectId: project.id, name: 'nope' })).status).toBe(403);
    expect((await mutate(stack, member, 'project.create', { orgId: org, name: 'nope' })).status).toBe(403);
    expect((await add(member, extra.third, 'member')).status).toBe(403);
    expect((await query(stack, member, 'auditLog.list', { orgId: org })).status).toBe(403);

    expect((await mutate(stack, admin, 'apiKey.create', { projectId: project.id, name: 'ci' })).status).toBe(200);
    expect((await add(admin, extra.third, 'owner')).status).toBe(403);
    expect(data(await add(admin, extra.third, 'member'))).toMatchObject({ email: extra.third, role: 'member' });
    expect((await mutate(stack, admin, 'member.remove', { orgId: org, userId: a.userId })).status).toBe(403);
    expect(data(await mutate(stack, admin, 'member.remove', { orgId: org, userId: memberId }))).toEqual({ userId: memberId, removed: true });
    expect((await query(stack, member, 'project.list', { orgId: org })).status).toBe(403);

    const lastOwner = await mutate(stack, aSession.access_token, 'member.remove', { orgId: org, userId: a.userId });
    expect(lastOwner.status).toBe(400);
    expect(lastOwner.body.error.message).toMatch(/at least one owner/);
  });

  it('lets every HTTP method reach every procedure (method override)', async () => {
    const token = aSession.access_token;
    const expected = data(await query(stack, token, 'organization.list'));
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await send(stack, method, '/api/trpc/organization.list', { token });
      expect({ method, status: res.status, data: res.body.result?.data }).toEqual({ method, status: 200, data: expected });
    }
    // A query's input in a POST body, and in ?input= on a DELETE.
    const projects = data(await query(stack, token, 'project.list', { orgId: a.orgId }));
    expect(data(await mutate(stack, token, 'project.list', { orgId: a.orgId }))).toEqual(projects);
    const input = encodeURIComponent(JSON.stringify({ orgId: a.orgId }));
    expect(data(await send(stack, 'DELETE', `/api/trpc/project.list?input=${input}`, { token }))).toEqual(projects);
    // A mutation reached by GET, its input in ?input= as for a query.
    const created = data(await query(stack, token, 'organization.create', { name: 'made by GET' }));
    expect(created).toMatchObject({ name: 'made by GET', role: 'owner' });
    expect(data<{ id: string }[]>(await query(stack, token, 'organization.list')).map((o) => o.id)).toContain(created.id);
    // tRPC batching works through the same path.
    const batch = await send(stack, 'GET', `/api/trpc/user.me,organization.list?batch=1&input=${encodeURIComponent('{}')}`, { token });
    expect(batch.status).toBe(200);
    expect(batch.body.map((r: any) => r.result.data)).toEqual([{ id: a.userId, email: 'a@spanlog.test' }, expect.arrayContaining(expected)]);
  });

  it("answers errors in tRPC's shape with their HTTP status", async () => {
    const token = aSession.access_token;
    const cases: [string, Promise<{ status: number; body: any }>, number, string][] = [
      ['no session', query(stack, undefined, 'user.me'), 401, 'UNAUTHORIZED'],
      ['an input that is not valid', query(stack, token, 'project.list', { orgId: 'not-a-uuid' }), 400, 'BAD_REQUEST'],
      ['no input where one is needed', query(stack, token, 'project.list'), 400, 'BAD_REQUEST'],
      ['a body that is not JSON', send(stack, 'POST', '/api/trpc/project.list', { token, body: '{nope', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST'],
      ['a prototype-polluting body', send(stack, 'POST', '/api/trpc/project.list', { token, body: '{"__proto__":{"x":1}}' }), 400, 'BAD_REQUEST'],
      ['a body that is not JSON by type', send(stack, 'POST', '/api/trpc/project.list', { token, body: 'orgId', headers: { 'content-type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a body over 1 MB', send(stack, 'POST', '/api/trpc/organization.create', { token, body: { name: 'x'.repeat(1_100_000) } }), 413, 'PAYLOAD_TOO_LARGE'],
      ['an unknown procedure', query(stack, token, 'nothing.here'), 404, 'NOT_FOUND'],
      ['an organization one is not a member of', query(stack, token, 'project.list', { orgId: randomUUID() }), 403, 'FORBIDDEN'],
    ];
    for (const [name, pending, status, code] of cases) {
      const res = await pending;
      expect({ name, status: res.status, error: res.body.error }).toEqual({
        name,
        status,
        error: expect.objectContaining({ message: expect.any(String), code: expect.any(Number), data: expect.objectContaining({ code, httpStatus: status }) }),
      });
    }
  });

  it('records security events in the audit log, readable by admins on plans that have audit logs', async () => {
    const org = await newOrg();
    const token = aSession.access_token;
    const refused = await query(stack, token, 'auditLog.list', { orgId: org });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/not part of the free plan/);

    await setPlan(stack, org, 'growth');
    const project = data(await mutate(stack, token, 'project.create', { orgId: org, name: 'audited' }));
    const key = data(await mutate(stack, token, 'apiKey.create', { projectId: project.id, name: 'audited' }));
    data(await mutate(stack, token, 'apiKey.revoke', { projectId: project.id, id: key.id }));
    const added = data(await mutate(stack, token, 'member.add', { orgId: org, email: extra.fourth, role: 'member' }));
    data(await mutate(stack, token, 'member.remove', { orgId: org, userId: added.userId }));
    // The owner's own security events show in each of their organizations.
    await send(stack, 'POST', '/api/v1/auth/login', { body: { email: 'a@spanlog.test', password: 'wrong' } });
    const spent = await login(stack, 'a@spanlog.test');
    await send(stack, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: spent.refresh_token } });
    await send(stack, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: spent.refresh_token } });
    const loggedOut = await login(stack, 'a@spanlog.test');
    await send(stack, 'POST', '/api/v1/auth/logout', { token: loggedOut.access_token });

    const expected = [
      'organization.created',
      'organization.plan_changed',
      'project.created',
      'api_key.created',
      'api_key.revoked',
      'member.added',
      'member.removed',
      'user.login_failed',
      'user.login',
      'session.refresh_reuse',
      'user.logout',
    ];
    const page = await eventually(
      async () => data<AuditPage>(await query(stack, token, 'auditLog.list', { orgId: org })),
      (p) => expected.every((action) => p.data.some((e) => e.action === action)),
    );
    expect(page.meta).toEqual({ nextCursor: null });
    expect(page.data.find((e) => e.action === 'organization.plan_changed')).toMatchObject({ target: org, details: { from: 'free', to: 'growth' } });
    expect(page.data.find((e) => e.action === 'member.added')).toMatchObject({ actorUserId: a.userId, target: added.userId, details: { email: extra.fourth, role: 'member' } });
    expect(page.data.find((e) => e.action === 'api_key.created')).toMatchObject({ target: key.id, details: { prefix: key.prefix } });
    const times = page.data.map((e) => e.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('pages the audit log by cursor without gaps or repeats', async () => {
    const org = await newOrg('team');
    const project = data(await mutate(stack, aSession.access_token, 'project.create', { orgId: org, name: 'paged' }));
    for (let i = 0; i < 55; i++) data(await mutate(stack, aSession.access_token, 'apiKey.create', { projectId: project.id, name: `k${i}` }));
    const keyEvents = (p: AuditPage) => p.data.filter((e) => e.action === 'api_key.created').length;
    await eventually(
      async () => (await stack.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE org_id = $1 AND action = 'api_key.created'`, [org])).rows[0].n as number,
      (n) => n === 55,
    );
    const first = data<AuditPage>(await query(stack, aSession.access_token, 'auditLog.list', { orgId: org }));
    expect(first.data).toHaveLength(50);
    const ids = first.data.map((e) => e.id);
    let cursor: string | null = first.meta.nextCursor;
    let keys = keyEvents(first);
    while (cursor) {
      const next = data<AuditPage>(await query(stack, aSession.access_token, 'auditLog.list', { orgId: org, cursor }));
      ids.push(...next.data.map((e) => e.id));
      keys += keyEvents(next);
      cursor = next.meta.nextCursor;
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(keys).toBe(55);
    expect((await query(stack, aSession.access_token, 'auditLog.list', { orgId: org, cursor: 'garbage' })).status).toBe(400);
  });
});
