import { randomUUID } from 'node:crypto';
import { type Session, type Tenant, bootstrap, createUser, data, eventually, login, mutate, query, send, setPlan } from './support/api';
import { smallBatch } from './support/factories';
import { type Stack, UNLIMITED_CREATIONS, startStack } from './support/stack';

// The audit log is projected from a stream, so two tests poll for it (up to 15 s each).

interface AuditPage {
  data: {
    id: string;
    action: string;
    actorUserId: string | null;
    target: string | null;
    details: Record<string, unknown>;
    createdAt: string;
  }[];
  meta: { nextCursor: string | null };
}

describe('dashboard RPC (/api/trpc/*)', () => {
  let stack: Stack;
  let a: Tenant;
  let b: Tenant;
  let aSession: Session;
  let bSession: Session;
  const extra = {
    member: 'member@spanlog.test',
    admin: 'admin@spanlog.test',
    third: 'third@spanlog.test',
    fourth: 'fourth@spanlog.test',
    fifth: 'fifth@spanlog.test',
  };
  const userIds: Record<string, string> = {};

  /** A fresh organization owned by A, so no test depends on what another did to a shared one. */
  const newOrg = async (plan = 'free'): Promise<string> => {
    const org = data(await mutate(stack, aSession.access_token, 'organization.create', { name: `org ${randomUUID()}` }));
    if (plan !== 'free') await setPlan(stack, org.id, plan);
    return org.id as string;
  };

  const ingest = (apiKey: string) => send(stack, 'POST', '/api/v1/traces', { token: apiKey, body: smallBatch(`rpc-${randomUUID()}`) });

  beforeAll(async () => {
    stack = await startStack(UNLIMITED_CREATIONS);
    a = await bootstrap(stack, 'a@spanlog.test', 'Org A', 'project a');
    b = await bootstrap(stack, 'b@spanlog.test', 'Org B', 'project b');
    for (const email of Object.values(extra)) userIds[email] = await createUser(stack, email);
    aSession = await login(stack, 'a@spanlog.test');
    bSession = await login(stack, 'b@spanlog.test');
  }, 120_000);

  afterAll(() => stack?.stop());

  it('shows a user only the organizations they belong to, with plan and role', async () => {
    expect(data(await query(stack, aSession.access_token, 'user.me'))).toEqual({ id: a.userId, email: 'a@spanlog.test' });
    expect(data(await query(stack, bSession.access_token, 'organization.list'))).toEqual([
      { id: b.orgId, name: 'Org B', plan: 'free', role: 'owner' },
    ]);
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
    expect(created).toEqual({
      id: expect.any(String),
      name: 'sdk',
      prefix: expect.any(String),
      apiKey: expect.stringMatching(/^sl_/),
      createdAt: expect.any(String),
    });
    expect(created.apiKey.startsWith(created.prefix)).toBe(true);

    const accepted = await ingest(created.apiKey);
    expect(accepted).toEqual({ status: 201, body: { accepted: 2, errors: [] } });

    const listed = await eventually(
      async () =>
        data<any[]>(await query(stack, aSession.access_token, 'apiKey.list', { projectId: a.projectId })).find((k) => k.id === created.id),
      (key) => key?.lastUsedAt !== null,
    );
    expect(listed).toEqual({
      id: created.id,
      name: 'sdk',
      prefix: created.prefix,
      createdAt: created.createdAt,
      lastUsedAt: expect.any(String),
      revokedAt: null,
    });

    expect(data(await mutate(stack, aSession.access_token, 'apiKey.revoke', { projectId: a.projectId, id: created.id }))).toEqual({
      id: created.id,
      revoked: true,
    });
    const refused = await ingest(created.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const after = data<any[]>(await query(stack, aSession.access_token, 'apiKey.list', { projectId: a.projectId })).find(
      (k) => k.id === created.id,
    );
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

  it('answers a project that does not exist exactly as one of another organization', async () => {
    const token = aSession.access_token;
    const unknown = randomUUID();
    for (const [procedure, call] of [
      ['apiKey.list', query],
      ['apiKey.create', mutate],
      ['evaluator.list', query],
    ] as const) {
      const input = (projectId: string) => (procedure === 'apiKey.create' ? { projectId, name: 'probe' } : { projectId });
      const [theirs, nobodys] = [
        await call(stack, token, procedure, input(b.projectId)),
        await call(stack, token, procedure, input(unknown)),
      ];
      const shape = (res: { status: number; body: any }, id: string) => ({
        status: res.status,
        code: res.body.error?.data?.code,
        message: res.body.error?.message.replace(id, '<id>'),
      });
      expect({ procedure, ...shape(nobodys, unknown) }).toEqual({ procedure, ...shape(theirs, b.projectId) });
      expect(shape(theirs, b.projectId)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(theirs.body.error.message).not.toContain(b.orgId);
    }
  });

  it('answers member.add alike whether or not the e-mail has an account, adding only an existing one', async () => {
    const org = await newOrg('pro');
    const token = aSession.access_token;
    const existing = await mutate(stack, token, 'member.add', { orgId: org, email: extra.fifth, role: 'member' });
    const unknown = await mutate(stack, token, 'member.add', { orgId: org, email: 'no-account@spanlog.test', role: 'member' });
    expect(data(existing)).toEqual({ email: extra.fifth, role: 'member' });
    expect(data(unknown)).toEqual({ email: 'no-account@spanlog.test', role: 'member' });
    expect(data<{ email: string }[]>(await query(stack, token, 'member.list', { orgId: org })).map((m) => m.email)).toEqual([
      'a@spanlog.test',
      extra.fifth,
    ]);

    // A full organization refuses both the same way.
    const full = await newOrg();
    const refusals = [
      await mutate(stack, token, 'member.add', { orgId: full, email: extra.fifth, role: 'member' }),
      await mutate(stack, token, 'member.add', { orgId: full, email: 'no-account@spanlog.test', role: 'member' }),
    ].map((r) => ({ status: r.status, message: r.body.error.message }));
    expect(refusals[1]).toEqual(refusals[0]);
    expect(refusals[0].status).toBe(403);
  });

  it('keeps the keys a removed admin made, unless the removal asks to revoke them', async () => {
    const org = await newOrg('growth');
    const project = data(await mutate(stack, aSession.access_token, 'project.create', { orgId: org, name: 'keys' }));
    data(await mutate(stack, aSession.access_token, 'member.add', { orgId: org, email: extra.admin, role: 'admin' }));
    data(await mutate(stack, aSession.access_token, 'member.add', { orgId: org, email: extra.third, role: 'admin' }));
    const ownerKey = data(await mutate(stack, aSession.access_token, 'apiKey.create', { projectId: project.id, name: 'owner' }));
    const keyOf = async (email: string) => {
      const session = await login(stack, email);
      return data(await mutate(stack, session.access_token, 'apiKey.create', { projectId: project.id, name: email }));
    };
    const kept = await keyOf(extra.admin);
    const revoked = await keyOf(extra.third);
    // Another organization's key made by the same admin is not this organization's to revoke.
    const elsewhere = data(
      await mutate(stack, (await login(stack, extra.third)).access_token, 'organization.create', { name: `third's ${randomUUID()}` }),
    );
    const elsewhereProject = data(
      await mutate(stack, (await login(stack, extra.third)).access_token, 'project.create', { orgId: elsewhere.id, name: 'own' }),
    );
    const elsewhereKey = data(
      await mutate(stack, (await login(stack, extra.third)).access_token, 'apiKey.create', { projectId: elsewhereProject.id, name: 'own' }),
    );

    expect(data(await mutate(stack, aSession.access_token, 'member.remove', { orgId: org, userId: userIds[extra.admin] }))).toEqual({
      userId: userIds[extra.admin],
      removed: true,
      revokedKeys: 0,
    });
    expect(
      data(await mutate(stack, aSession.access_token, 'member.remove', { orgId: org, userId: userIds[extra.third], revokeKeys: true })),
    ).toEqual({ userId: userIds[extra.third], removed: true, revokedKeys: 1 });
    expect(
      (await mutate(stack, aSession.access_token, 'member.remove', { orgId: org, userId: userIds[extra.third], revokeKeys: 'yes' })).status,
    ).toBe(400);

    expect((await ingest(kept.apiKey)).status).toBe(201);
    expect((await ingest(ownerKey.apiKey)).status).toBe(201);
    expect((await ingest(elsewhereKey.apiKey)).status).toBe(201);
    expect((await ingest(revoked.apiKey)).status).toBe(401);
    const listed = data<{ id: string; revokedAt: string | null }[]>(
      await query(stack, aSession.access_token, 'apiKey.list', { projectId: project.id }),
    );
    expect(listed.find((k) => k.id === revoked.id)?.revokedAt).toEqual(expect.any(String));
  });

  it('enforces seats per plan when a member is added: Free has 1, Pro 3', async () => {
    const free = await newOrg();
    const refused = await mutate(stack, aSession.access_token, 'member.add', { orgId: free, email: extra.member, role: 'member' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ message: expect.stringMatching(/free plan allows 1 seat/), data: { code: 'FORBIDDEN' } });
    expect(data<unknown[]>(await query(stack, aSession.access_token, 'member.list', { orgId: free }))).toHaveLength(1);

    const pro = await newOrg('pro');
    for (const email of [extra.member, extra.admin]) {
      expect(data(await mutate(stack, aSession.access_token, 'member.add', { orgId: pro, email, role: 'member' }))).toMatchObject({
        email,
        role: 'member',
      });
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
    data(await add(aSession.access_token, extra.member, 'member'));
    const memberId = userIds[extra.member];
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
    expect(data(await mutate(stack, admin, 'member.remove', { orgId: org, userId: memberId }))).toEqual({
      userId: memberId,
      removed: true,
      revokedKeys: 0,
    });
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
    expect(batch.body.map((r: any) => r.result.data)).toEqual([
      { id: a.userId, email: 'a@spanlog.test' },
      expect.arrayContaining(expected),
    ]);
  });

  it("answers errors in tRPC's shape with their HTTP status", async () => {
    const token = aSession.access_token;
    const cases: [string, Promise<{ status: number; body: any }>, number, string][] = [
      ['no session', query(stack, undefined, 'user.me'), 401, 'UNAUTHORIZED'],
      ['an input that is not valid', query(stack, token, 'project.list', { orgId: 'not-a-uuid' }), 400, 'BAD_REQUEST'],
      ['no input where one is needed', query(stack, token, 'project.list'), 400, 'BAD_REQUEST'],
      [
        'a body that is not JSON',
        send(stack, 'POST', '/api/trpc/project.list', { token, body: '{nope', headers: { 'content-type': 'application/json' } }),
        400,
        'BAD_REQUEST',
      ],
      [
        'a prototype-polluting body',
        send(stack, 'POST', '/api/trpc/project.list', { token, body: '{"__proto__":{"x":1}}' }),
        400,
        'BAD_REQUEST',
      ],
      [
        'a body that is not JSON by type',
        send(stack, 'POST', '/api/trpc/project.list', { token, body: 'orgId', headers: { 'content-type': 'text/plain' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        'a body over 1 MB',
        send(stack, 'POST', '/api/trpc/organization.create', { token, body: { name: 'x'.repeat(1_100_000) } }),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      ['an unknown procedure', query(stack, token, 'nothing.here'), 404, 'NOT_FOUND'],
      ['an organization one is not a member of', query(stack, token, 'project.list', { orgId: randomUUID() }), 403, 'FORBIDDEN'],
    ];
    for (const [name, pending, status, code] of cases) {
      const res = await pending;
      expect({ name, status: res.status, error: res.body.error }).toEqual({
        name,
        status,
        error: expect.objectContaining({
          message: expect.any(String),
          code: expect.any(Number),
          data: expect.objectContaining({ code, httpStatus: status }),
        }),
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
    data(await mutate(stack, token, 'member.add', { orgId: org, email: extra.fourth, role: 'member' }));
    const added = userIds[extra.fourth];
    data(await mutate(stack, token, 'member.remove', { orgId: org, userId: added }));

    const expected = [
      'organization.created',
      'organization.plan_changed',
      'project.created',
      'api_key.created',
      'api_key.revoked',
      'member.added',
      'member.removed',
    ];
    const page = await eventually(
      async () => data<AuditPage>(await query(stack, token, 'auditLog.list', { orgId: org })),
      (p) => expected.every((action) => p.data.some((e) => e.action === action)),
    );
    expect(page.meta).toEqual({ nextCursor: null });
    expect(page.data.find((e) => e.action === 'organization.plan_changed')).toMatchObject({
      target: org,
      details: { from: 'free', to: 'growth' },
    });
    expect(page.data.find((e) => e.action === 'member.added')).toMatchObject({
      actorUserId: a.userId,
      target: added,
      details: { email: extra.fourth, role: 'member' },
    });
    expect(page.data.find((e) => e.action === 'api_key.created')).toMatchObject({ target: key.id, details: { prefix: key.prefix } });
    const times = page.data.map((e) => e.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it("shows a user's logins to that user alone: never in the audit log of an organization that added them", async () => {
    const org = await newOrg('growth');
    data(await mutate(stack, aSession.access_token, 'member.add', { orgId: org, email: extra.fifth, role: 'member' }));
    const fifth = extra.fifth;
    await send(stack, 'POST', '/api/v1/auth/login', { body: { email: fifth, password: 'wrong' } });
    const spent = await login(stack, fifth);
    await send(stack, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: spent.refresh_token } });
    await send(stack, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: spent.refresh_token } });
    const session = await login(stack, fifth);
    const loggedOut = await login(stack, fifth);
    await send(stack, 'POST', '/api/v1/auth/logout', { token: loggedOut.access_token });

    const own = ['user.login_failed', 'user.login', 'session.refresh_reuse', 'user.logout'];
    const mine = await eventually(
      async () => data<AuditPage>(await query(stack, session.access_token, 'user.securityLog')),
      (p) => own.every((action) => p.data.some((e) => e.action === action)),
    );
    expect(mine.data.every((e) => e.actorUserId === userIds[fifth])).toBe(true);
    expect(mine.data.find((e) => e.action === 'user.login_failed')).toMatchObject({ target: fifth, ip: expect.any(String) });

    // The organization's owner sees its member joining, and none of the member's own events.
    const orgLog = await eventually(
      async () => data<AuditPage>(await query(stack, aSession.access_token, 'auditLog.list', { orgId: org })),
      (p) => p.data.some((e) => e.action === 'member.added'),
    );
    expect(orgLog.data.map((e) => e.action).sort()).toEqual(['member.added', 'organization.created', 'organization.plan_changed']);
    const ownersOwn = data<AuditPage>(await query(stack, aSession.access_token, 'user.securityLog'));
    expect(ownersOwn.data.some((e) => e.actorUserId === userIds[fifth])).toBe(false);
    expect((await query(stack, undefined, 'user.securityLog')).status).toBe(401);
  });

  it('pages the audit log by cursor without gaps or repeats', async () => {
    const org = await newOrg('team');
    const project = data(await mutate(stack, aSession.access_token, 'project.create', { orgId: org, name: 'paged' }));
    for (let i = 0; i < 55; i++)
      data(await mutate(stack, aSession.access_token, 'apiKey.create', { projectId: project.id, name: `k${i}` }));
    const keyEvents = (p: AuditPage) => p.data.filter((e) => e.action === 'api_key.created').length;
    await eventually(
      async () =>
        (await stack.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE org_id = $1 AND action = 'api_key.created'`, [org])).rows[0]
          .n as number,
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
