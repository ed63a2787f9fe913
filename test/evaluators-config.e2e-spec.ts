import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type HttpAnswer,
  PASSWORD,
  type Session,
  type Tenant,
  bootstrap,
  createUser,
  data,
  eventually,
  login,
  mutate,
  query,
  setPlan,
} from './support/api';
import { type Stack, UNLIMITED_CREATIONS, runCli, startStack } from './support/stack';

// Webhook evaluator configuration (CONTRACT "Webhook evaluators") through the dashboard RPC
// and `spanlog evaluators`. Every test works in a project of its own. Nothing here calls a
// webhook: the URLs need not answer.

const URL_ = 'https://eval.example.com/score';
const SECRET = 'Bearer evaluator-secret';
const MASKED = '***';

describe('webhook evaluator configuration', () => {
  let stack: Stack;
  let owner: Tenant;
  let other: Tenant;
  let ownerSession: Session;
  let otherSession: Session;
  const emails = {
    owner: 'eval-owner@spanlog.test',
    other: 'eval-other@spanlog.test',
    member: 'eval-member@spanlog.test',
    admin: 'eval-admin@spanlog.test',
  };
  const temporaryDirs: string[] = [];

  const token = () => ownerSession.access_token;

  /** A fresh project in the owner's organization, or in `orgId`. */
  const newProject = async (orgId = owner.orgId): Promise<string> =>
    data(await mutate(stack, token(), 'project.create', { orgId, name: `project ${randomUUID()}` })).id as string;

  const create = (projectId: string, fields: Record<string, unknown> = {}, as = token()) =>
    mutate(stack, as, 'evaluator.create', { projectId, name: 'relevance', url: URL_, headers: { Authorization: SECRET }, ...fields });

  /** An evaluator as created, without the signing secret only the creation's answer shows. */
  const evaluatorOf = (res: HttpAnswer) => {
    const { signingSecret: _shownOnce, ...evaluator } = data(res);
    return evaluator;
  };

  /** A refusal in tRPC's shape: the status, tRPC's code and the message naming the field. */
  const expectRefused = (res: HttpAnswer, status: number, code: string, message?: string | RegExp) => {
    expect({ status: res.status, code: res.body.error?.data?.code }).toEqual({ status, code });
    if (message !== undefined)
      expect(res.body.error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  };

  beforeAll(async () => {
    stack = await startStack(UNLIMITED_CREATIONS);
    owner = await bootstrap(stack, emails.owner, 'Eval Org', 'eval project');
    other = await bootstrap(stack, emails.other, 'Other Org', 'other project');
    await createUser(stack, emails.member);
    await createUser(stack, emails.admin);
    ownerSession = await login(stack, emails.owner);
    otherSession = await login(stack, emails.other);
  }, 120_000);

  afterAll(async () => {
    for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
    await stack?.stop();
  });

  it('creates an evaluator with every default filled and its signing secret shown, and lists it with header values masked and no secret', async () => {
    const projectId = await newProject();
    const { signingSecret, ...created } = data(await create(projectId));
    expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toEqual({
      id: expect.any(String),
      projectId,
      name: 'relevance',
      kind: 'webhook',
      url: URL_,
      judge: null,
      headers: { Authorization: SECRET },
      timeoutMs: 10_000,
      retries: 1,
      filter: { spanTypes: ['LLM'], names: [], sampleRate: 1, tags: [], environments: [] },
      enabled: true,
      target: 'span',
      quietSeconds: 30,
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
    });

    const listed = data(await query(stack, token(), 'evaluator.list', { projectId }));
    expect(listed).toEqual([{ ...created, headers: { Authorization: MASKED } }]);
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
  });

  it('keeps what was given and upper-cases span types', async () => {
    const projectId = await newProject();
    const fields = {
      timeoutMs: 30_000,
      retries: 0,
      filter: { spanTypes: ['llm', 'Tool'], names: ['chat'], sampleRate: 0.25 },
      enabled: false,
    };
    expect(data(await create(projectId, fields))).toMatchObject({
      ...fields,
      filter: { spanTypes: ['LLM', 'TOOL'], names: ['chat'], sampleRate: 0.25 },
    });
  });

  it('refuses invalid fields with 400 BAD_REQUEST naming the field, and stores nothing', async () => {
    const projectId = await newProject();
    for (const [fields, message] of [
      [{ timeoutMs: 999 }, 'timeoutMs: must be an integer from 1000 to 30000'],
      [{ timeoutMs: 30_001 }, 'timeoutMs: must be an integer from 1000 to 30000'],
      [{ retries: 6 }, 'retries: must be an integer from 0 to 5'],
      [{ retries: 1.5 }, 'retries: must be an integer from 0 to 5'],
      [{ url: 'ftp://eval.example.com/score' }, /^url: must be an absolute http or https URL/],
      [{ url: 'eval.example.com/score' }, /^url: must be an absolute http or https URL/],
      [{ url: undefined }, 'url: is required'],
      [{ filter: { sampleRate: 1.5 } }, 'filter.sampleRate: must be a number from 0 to 1'],
      [{ filter: { spanTypes: [] } }, /^filter\.spanTypes: /],
      [{ headers: { 'X-Key': 'a\nb' } }, /^headers\.X-Key: /],
      [{ headers: { [`X-${'k'.repeat(300)}`]: 'v' } }, /^headers: header names must be at most 256 characters \("X-k+…"\)$/],
      [{ timeout: 5_000 }, /^unknown field "timeout"/],
    ] as const) {
      const res = await create(projectId, fields);
      expect({ fields, status: res.status, code: res.body.error?.data?.code }).toEqual({ fields, status: 400, code: 'BAD_REQUEST' });
      expect(res.body.error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    }
    expectRefused(await create('not-a-uuid'), 400, 'BAD_REQUEST', 'projectId: must be a UUID');
    expect(data(await query(stack, token(), 'evaluator.list', { projectId }))).toEqual([]);
  });

  it('refuses a second evaluator of the same name in a project, by create or by rename', async () => {
    const projectId = await newProject();
    data(await create(projectId, { name: 'dup' }));
    expectRefused(
      await create(projectId, { name: 'dup' }),
      400,
      'BAD_REQUEST',
      'name: an evaluator named "dup" already exists in this project',
    );
    const second = data(await create(projectId, { name: 'second' }));
    expectRefused(
      await mutate(stack, token(), 'evaluator.update', { projectId, id: second.id, name: 'dup' }),
      400,
      'BAD_REQUEST',
      /^name: an evaluator named "dup"/,
    );
    // Another project may use the name.
    expect(data(await create(await newProject(), { name: 'dup' }))).toMatchObject({ name: 'dup' });
  });

  it('updates only the fields given, merging filter members; its answer shows header values only when it set them', async () => {
    const projectId = await newProject();
    const created = evaluatorOf(await create(projectId, { filter: { spanTypes: ['LLM', 'TOOL'] } }));
    const updated = data(
      await mutate(stack, token(), 'evaluator.update', {
        projectId,
        id: created.id,
        timeoutMs: 2_000,
        filter: { sampleRate: 0.5 },
        enabled: false,
      }),
    );
    expect(updated).toEqual({
      ...created,
      timeoutMs: 2_000,
      filter: { spanTypes: ['LLM', 'TOOL'], names: [], sampleRate: 0.5, tags: [], environments: [] },
      enabled: false,
      headers: { Authorization: MASKED },
      updatedAt: expect.any(String),
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));

    const rotated = data(
      await mutate(stack, token(), 'evaluator.update', { projectId, id: created.id, headers: { Authorization: 'Bearer rotated' } }),
    );
    expect(rotated.headers).toEqual({ Authorization: 'Bearer rotated' });
    expect(data(await query(stack, token(), 'evaluator.list', { projectId }))).toEqual([
      { ...rotated, headers: { Authorization: MASKED } },
    ]);

    expectRefused(
      await mutate(stack, token(), 'evaluator.update', { projectId, id: created.id, retries: 9 }),
      400,
      'BAD_REQUEST',
      'retries: must be an integer from 0 to 5',
    );
    expectRefused(
      await mutate(stack, token(), 'evaluator.update', { projectId, id: created.id }),
      400,
      'BAD_REQUEST',
      /^nothing to change/,
    );
    expectRefused(await mutate(stack, token(), 'evaluator.update', { projectId, id: randomUUID(), enabled: true }), 404, 'NOT_FOUND');
  });

  it('deletes an evaluator once', async () => {
    const projectId = await newProject();
    const created = data(await create(projectId));
    expect(data(await mutate(stack, token(), 'evaluator.delete', { projectId, id: created.id }))).toEqual({
      id: created.id,
      deleted: true,
    });
    expect(data(await query(stack, token(), 'evaluator.list', { projectId }))).toEqual([]);
    expectRefused(await mutate(stack, token(), 'evaluator.delete', { projectId, id: created.id }), 404, 'NOT_FOUND');
  });

  it("keeps organizations apart: a member of another organization can neither read nor change a project's evaluators", async () => {
    const projectId = await newProject();
    const created = evaluatorOf(await create(projectId));
    const intruder = otherSession.access_token;
    expectRefused(await query(stack, intruder, 'evaluator.list', { projectId }), 403, 'FORBIDDEN');
    expectRefused(await create(projectId, { name: 'intruder' }, intruder), 403, 'FORBIDDEN');
    expectRefused(
      await mutate(stack, intruder, 'evaluator.update', { projectId, id: created.id, url: 'https://attacker.example.com/' }),
      403,
      'FORBIDDEN',
    );
    expectRefused(await mutate(stack, intruder, 'evaluator.delete', { projectId, id: created.id }), 403, 'FORBIDDEN');
    expectRefused(await mutate(stack, intruder, 'evaluator.rotateSecret', { projectId, id: created.id }), 403, 'FORBIDDEN');
    // Nor through a project of their own: the evaluator belongs to its project.
    expectRefused(await mutate(stack, intruder, 'evaluator.delete', { projectId: other.projectId, id: created.id }), 404, 'NOT_FOUND');
    expect(data(await query(stack, token(), 'evaluator.list', { projectId }))).toEqual([
      { ...created, headers: { Authorization: MASKED } },
    ]);
  });

  it('lets a plain member read but not change; an admin changes', async () => {
    // Free has one seat: a Pro organization holds the owner, a member and an admin.
    const orgId = data(await mutate(stack, token(), 'organization.create', { name: `roles ${randomUUID()}` })).id as string;
    await setPlan(stack, orgId, 'pro');
    data(await mutate(stack, token(), 'member.add', { orgId, email: emails.member, role: 'member' }));
    data(await mutate(stack, token(), 'member.add', { orgId, email: emails.admin, role: 'admin' }));
    const member = (await login(stack, emails.member)).access_token;
    const admin = (await login(stack, emails.admin)).access_token;
    const projectId = await newProject(orgId);

    expectRefused(await create(projectId, {}, member), 403, 'FORBIDDEN');
    const created = evaluatorOf(await create(projectId, {}, admin));
    expect(data(await query(stack, member, 'evaluator.list', { projectId }))).toEqual([{ ...created, headers: { Authorization: MASKED } }]);
    expectRefused(await mutate(stack, member, 'evaluator.update', { projectId, id: created.id, enabled: false }), 403, 'FORBIDDEN');
    expectRefused(await mutate(stack, member, 'evaluator.delete', { projectId, id: created.id }), 403, 'FORBIDDEN');
    expect(data(await mutate(stack, admin, 'evaluator.update', { projectId, id: created.id, enabled: false }))).toMatchObject({
      enabled: false,
    });
    expect(data(await mutate(stack, admin, 'evaluator.delete', { projectId, id: created.id }))).toEqual({ id: created.id, deleted: true });
  });

  it('audits each change without its header values or signing secret', async () => {
    const orgId = data(await mutate(stack, token(), 'organization.create', { name: `audited ${randomUUID()}` })).id as string;
    await setPlan(stack, orgId, 'growth');
    const projectId = await newProject(orgId);
    const created = data(await create(projectId));
    data(await mutate(stack, token(), 'evaluator.update', { projectId, id: created.id, retries: 2 }));
    const rotated = data(await mutate(stack, token(), 'evaluator.rotateSecret', { projectId, id: created.id }));
    data(await mutate(stack, token(), 'evaluator.delete', { projectId, id: created.id }));

    const actions = ['evaluator.created', 'evaluator.updated', 'evaluator.secret_rotated', 'evaluator.deleted'];
    const page = await eventually(
      async () =>
        data<{ data: { action: string; target: string | null; details: Record<string, unknown> }[] }>(
          await query(stack, token(), 'auditLog.list', { orgId }),
        ),
      (p) => actions.every((action) => p.data.some((e) => e.action === action)),
    );
    const events = page.data.filter((e) => actions.includes(e.action));
    // Three changes may share a millisecond, so their order in the log is not asserted.
    expect(events.map((e) => [e.action, e.target]).sort()).toEqual([
      ['evaluator.created', created.id],
      ['evaluator.deleted', created.id],
      ['evaluator.secret_rotated', created.id],
      ['evaluator.updated', created.id],
    ]);
    expect(events.find((e) => e.action === 'evaluator.updated')?.details).toEqual({ projectId, name: 'relevance', changed: ['retries'] });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    for (const secret of [created.signingSecret, rotated.signingSecret]) expect(JSON.stringify(page)).not.toContain(secret);
  });

  it('gives an evaluator a new signing secret, shown in that answer alone, with header values masked', async () => {
    const projectId = await newProject();
    const created = data(await create(projectId));
    const rotated = data(await mutate(stack, token(), 'evaluator.rotateSecret', { projectId, id: created.id }));
    expect(rotated).toEqual({
      ...created,
      headers: { Authorization: MASKED },
      signingSecret: expect.stringMatching(/^whsec_/),
      updatedAt: expect.any(String),
    });
    expect(rotated.signingSecret).not.toBe(created.signingSecret);
    expect(JSON.stringify(data(await query(stack, token(), 'evaluator.list', { projectId })))).not.toContain('whsec_');
    expectRefused(await mutate(stack, token(), 'evaluator.rotateSecret', { projectId, id: randomUUID() }), 404, 'NOT_FOUND');
  });

  describe('spanlog evaluators', () => {
    /** An environment with its own config directory, logged in as the owner. */
    const loggedInEnv = async (): Promise<NodeJS.ProcessEnv> => {
      const config = mkdtempSync(join(tmpdir(), 'spanlog-evaluators-'));
      temporaryDirs.push(config);
      const env: NodeJS.ProcessEnv = { ...stack.env, XDG_CONFIG_HOME: config };
      delete env.SPANLOG_API_KEY;
      const res = await runCli(['login', '--email', emails.owner, '--password', PASSWORD, '--api', stack.baseUrl, '--json'], env);
      if (res.code !== 0) throw new Error(`login failed: ${res.stderr}`);
      return env;
    };

    /** Runs the CLI and parses its standard output, which must be exactly one JSON document. */
    const json = async (args: string[], env: NodeJS.ProcessEnv): Promise<any> => {
      const res = await runCli([...args, '--json'], env);
      if (res.code !== 0) throw new Error(`spanlog ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
      return JSON.parse(res.stdout);
    };

    it('creates, lists (masked), updates, rotates the signing secret of and deletes an evaluator', async () => {
      const env = await loggedInEnv();
      const projectId = await newProject();
      const { signingSecret, ...created } = await json(
        [
          'evaluators',
          'create',
          '--project',
          projectId,
          '--name',
          'from cli',
          '--url',
          URL_,
          '--header',
          `Authorization: ${SECRET}`,
          '--span-types',
          'llm,tool',
          '--sample-rate',
          '0.5',
        ],
        env,
      );
      expect(signingSecret).toMatch(/^whsec_/);
      expect(created).toEqual({
        id: expect.any(String),
        projectId,
        name: 'from cli',
        kind: 'webhook',
        url: URL_,
        judge: null,
        headers: { Authorization: SECRET },
        timeoutMs: 10_000,
        retries: 1,
        filter: { spanTypes: ['LLM', 'TOOL'], names: [], sampleRate: 0.5, tags: [], environments: [] },
        enabled: true,
        target: 'span',
        quietSeconds: 30,
        createdAt: expect.any(String),
        updatedAt: created.createdAt,
      });

      expect(await json(['evaluators', 'list', '--project', projectId], env)).toEqual([{ ...created, headers: { Authorization: MASKED } }]);
      const human = await runCli(['evaluators', 'list', '--project', projectId], env);
      expect(human).toMatchObject({ code: 0, stdout: expect.stringContaining('from cli') });
      expect(human.stdout).not.toContain(SECRET);

      const updated = await json(
        ['evaluators', 'update', '--project', projectId, '--id', created.id, '--disabled', '--timeout-ms', '3000'],
        env,
      );
      expect(updated).toMatchObject({ id: created.id, enabled: false, timeoutMs: 3_000, headers: { Authorization: MASKED } });
      const traced = await json(
        ['evaluators', 'update', '--project', projectId, '--id', created.id, '--target', 'trace', '--quiet-seconds', '5', '--tags', 'prod'],
        env,
      );
      expect(traced).toMatchObject({ target: 'trace', quietSeconds: 5, filter: { spanTypes: ['LLM', 'TOOL'], tags: ['prod'] } });

      const rotated = await json(['evaluators', 'rotate-secret', '--project', projectId, '--id', created.id], env);
      expect(rotated).toMatchObject({
        id: created.id,
        headers: { Authorization: MASKED },
        signingSecret: expect.stringMatching(/^whsec_/),
      });
      expect(rotated.signingSecret).not.toBe(signingSecret);
      const shown = await runCli(['evaluators', 'rotate-secret', '--project', projectId, '--id', created.id], env);
      expect(shown).toMatchObject({ code: 0, stdout: expect.stringMatching(/signing secret whsec_\S+ {2}\(shown this once/) });

      expect(await json(['evaluators', 'delete', '--project', projectId, '--id', created.id], env)).toEqual({
        id: created.id,
        deleted: true,
      });
      expect(await json(['evaluators', 'list', '--project', projectId], env)).toEqual([]);
    }, 120_000);

    it('fails with one line naming the field the API refused', async () => {
      const env = await loggedInEnv();
      const projectId = await newProject();
      const res = await runCli(
        ['evaluators', 'create', '--project', projectId, '--name', 'x', '--url', URL_, '--timeout-ms', '10', '--json'],
        env,
      );
      expect(res.code).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe('spanlog: timeoutMs: must be an integer from 1000 to 30000 (400 BAD_REQUEST)\n');
    });
  });

  describe('in production (issue 24 item 8)', () => {
    let production: Stack;
    let session: Session;
    let tenant: Tenant;
    const PRIVATE_URLS = [
      'https://127.0.0.1/score',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:7f00:1]/score',
      'https://2130706433/score',
      'https://0177.0.0.1/score',
      'https://0.0.0.0/score',
      'https://[::1]/score',
      'https://10.1.2.3/score',
      'https://192.168.0.1/score',
      'https://100.64.0.1/score',
      'https://[fe80::1]/score',
      'https://[fd00::1]/score',
      'https://localhost/score',
      'https://judge.localhost/score',
    ];

    beforeAll(async () => {
      production = await startStack({ NODE_ENV: 'production' });
      tenant = await bootstrap(production, 'eval-prod@spanlog.test', 'Prod', 'p');
      session = await login(production, 'eval-prod@spanlog.test');
    }, 120_000);

    afterAll(() => production?.stop());

    it('refuses private, loopback, link-local and metadata addresses when an evaluator is created or edited, naming url', async () => {
      for (const url of PRIVATE_URLS) {
        const res = await mutate(production, session.access_token, 'evaluator.create', {
          projectId: tenant.projectId,
          name: 'private',
          url,
        });
        expect({ url, status: res.status, message: res.body.error?.message }).toEqual({
          url,
          status: 400,
          message: expect.stringMatching(/^url: must not be a private, loopback, link-local or unspecified address/),
        });
      }
      // Host names are not resolved when saved: the call checks the address they resolve to then.
      const saved = data(
        await mutate(production, session.access_token, 'evaluator.create', { projectId: tenant.projectId, name: 'public', url: URL_ }),
      );
      const edited = await mutate(production, session.access_token, 'evaluator.update', {
        projectId: tenant.projectId,
        id: saved.id,
        url: 'https://169.254.169.254/',
      });
      expect(edited.status).toBe(400);
      expect(edited.body.error.message).toMatch(/^url: must not be a private/);
      expect(
        data(await query(production, session.access_token, 'evaluator.list', { projectId: tenant.projectId })).map(
          (e: { url: string }) => e.url,
        ),
      ).toEqual([URL_]);
    });
  });

  it('outside production takes a loopback evaluator URL, as before', async () => {
    const res = await create(await newProject(), { url: 'http://127.0.0.1:8080/score' });
    expect(res.status).toBe(200);
  });
});
