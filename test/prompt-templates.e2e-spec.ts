import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAYLOAD_LIMITS } from '@app/domain';
import { type Tenant, bootstrap, eventually } from './support/api';
import { type Stack, runCli, startStack } from './support/stack';

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** GET and POST /api/v1/prompt-templates (SPEC 4.5, 4.6; CONTRACT "Prompt templates") and `spanlog prompts`. */
describe('prompt templates', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'prompts@spanlog.test', 'Prompts', 'p', 'pro');
  }, 120_000);

  afterAll(() => stack?.stop());

  async function call(
    method: 'GET' | 'POST',
    path: string,
    init: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const key = init.key === undefined ? tenant.apiKey : init.key;
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }
  const push = (body: unknown, key?: string | null) => call('POST', '/api/v1/prompt-templates', { body, key });
  const get = (query: string, headers?: Record<string, string>) => call('GET', `/api/v1/prompt-templates${query}`, { headers });

  /** Every answer to an authenticated request carries the key's rate-limit headers (CONTRACT "Rate limits"). */
  const expectRateLimitHeaders = (answer: Answer) => {
    expect(answer.headers.get('ratelimit-limit')).toBe('1000');
    expect(answer.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(answer.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  };

  it('creates a text template, pushes a chat version, and resolves both', async () => {
    const first = await push({ name: 'greeting', template: 'Hello {{name}}', commitMessage: 'first draft' });
    expect(first.status).toBe(201);
    expectRateLimitHeaders(first);
    expect(first.body).toEqual({
      name: 'greeting',
      version: 1,
      template: 'Hello {{name}}',
      labels: [],
      config: {},
      commitMessage: 'first draft',
      createdAt: expect.any(String),
    });

    const chat = [
      { role: 'system', content: 'You greet people.' },
      { role: 'user', content: 'Greet {{name}}.' },
    ];
    const second = await push({
      name: 'greeting',
      template: chat,
      labels: ['staging'],
      config: { model: 'gpt-4o-mini', temperature: 0.2 },
    });
    expect(second.status).toBe(201);
    expect(second.body).toEqual({
      name: 'greeting',
      version: 2,
      template: chat,
      labels: ['staging'],
      config: { model: 'gpt-4o-mini', temperature: 0.2 },
      commitMessage: null,
      createdAt: expect.any(String),
    });
    expect(Date.parse(second.body.createdAt)).toBeGreaterThanOrEqual(Date.parse(first.body.createdAt));

    const latest = await get('?name=greeting');
    expect(latest.status).toBe(200);
    expectRateLimitHeaders(latest);
    expect(latest.body).toEqual({ ...second.body, labels: ['latest', 'staging'] });
    expect(latest.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    expect(latest.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await get('?name=greeting&version=1')).body).toEqual(first.body);
  });

  it('answers 400 naming the field or parameter, with the rate-limit headers', async () => {
    const cases: [unknown, string][] = [
      [{ template: 'x' }, 'name:'],
      [{ name: 'bad\u0000name', template: 'x' }, 'name:'],
      [{ name: 'n', template: 42 }, 'template:'],
      [{ name: 'n', template: [{ role: 'user' }] }, 'template[0].content:'],
      [{ name: 'n', template: 'x', labels: ['ok', 'Not Ok'] }, 'labels[1]:'],
      [{ name: 'n', template: 'x', labels: ['latest'] }, 'labels[0]: "latest" is reserved'],
      [{ name: 'n', template: 'x', config: ['a'] }, 'config:'],
      [{ name: 'n', template: 'x', commitMessage: 1 }, 'commitMessage:'],
    ];
    for (const [body, message] of cases) {
      const answer = await push(body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining(message) });
      expectRateLimitHeaders(answer);
    }
    for (const [query, message] of [
      ['?limit=0', 'limit:'],
      ['?limit=101', 'limit:'],
      ['?cursor=nope', 'cursor:'],
      ['?version=1', 'name:'],
      ['?name=greeting&version=x', 'version:'],
    ]) {
      const answer = await get(query);
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain(message);
      expectRateLimitHeaders(answer);
    }
  });

  it('answers 413 past 1 MB and takes a body of exactly 1 MB', async () => {
    const bodyOf = (size: number) => {
      const shell = JSON.stringify({ name: 'big', template: '' });
      return JSON.stringify({ name: 'big', template: 'x'.repeat(size - Buffer.byteLength(shell)) });
    };
    const atLimit = bodyOf(PAYLOAD_LIMITS.default);
    expect(Buffer.byteLength(atLimit)).toBe(PAYLOAD_LIMITS.default);
    const accepted = await push(atLimit);
    expect(accepted.status).toBe(201);
    const over = await push(bodyOf(PAYLOAD_LIMITS.default + 1));
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expectRateLimitHeaders(over);
    expect((await get('?name=big')).body.version).toBe(1);
  });

  it('answers 401 without a key or with an unknown one', async () => {
    for (const key of [null, 'sl_not_a_key']) {
      const pushed = await push({ name: 'x', template: 'y' }, key);
      expect(pushed.status).toBe(401);
      expect(pushed.body.error.code).toBe('UNAUTHORIZED');
      expect((await call('GET', '/api/v1/prompt-templates', { key })).status).toBe(401);
    }
  });

  it('gives 20 concurrent pushes of one name exactly versions 1..20', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => push({ name: 'contended', template: `take ${i}` })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(answers.map((a) => a.body.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Each answer is the version it stored.
    for (const answer of answers)
      expect((await get(`?name=contended&version=${answer.body.version}`)).body.template).toBe(answer.body.template);
    expect((await get('?name=contended')).body.version).toBe(20);
  });

  it('moves a label to the newest version that names it; resolves production when present, else latest; picks by version or label', async () => {
    await push({ name: 'faq', template: 'v1' });
    expect((await get('?name=faq')).body).toMatchObject({ version: 1, labels: ['latest'] });
    await push({ name: 'faq', template: 'v2', labels: ['production', 'staging'] });
    await push({ name: 'faq', template: 'v3' });
    const resolved = await get('?name=faq');
    expect(resolved.body).toMatchObject({ version: 2, template: 'v2', labels: ['production', 'staging'] });
    expect((await get('?name=faq&label=latest')).body).toMatchObject({ version: 3, labels: ['latest'] });

    await push({ name: 'faq', template: 'v4', labels: ['production'] });
    expect((await get('?name=faq')).body).toMatchObject({ version: 4, labels: ['latest', 'production'] });
    expect((await get('?name=faq&version=2')).body).toMatchObject({ version: 2, labels: ['staging'] });
    expect((await get('?name=faq&label=staging')).body).toMatchObject({ version: 2, template: 'v2' });

    const both = await get('?name=faq&version=2&label=staging');
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain('version, label');
    for (const query of ['?name=faq&version=9', '?name=faq&label=canary', '?name=never-pushed']) {
      const missing = await get(query);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
      expectRateLimitHeaders(missing);
    }
  });

  it('answers 304 to a matching If-None-Match (a list of tags or *), and 200 with a new ETag after a push', async () => {
    await push({ name: 'cached', template: 'one', labels: ['production'] });
    const first = await get('?name=cached');
    const etag = first.headers.get('etag') as string;
    for (const ifNoneMatch of [etag, `"other", W/${etag}`, '*']) {
      const revalidated = await get('?name=cached', { 'if-none-match': ifNoneMatch });
      expect(revalidated.status).toBe(304);
      expect(revalidated.body).toBeNull();
      expect(revalidated.headers.get('etag')).toBe(etag);
      expect(revalidated.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
      expectRateLimitHeaders(revalidated);
    }
    expect((await get('?name=cached', { 'if-none-match': '"stale"' })).status).toBe(200);

    // A push that does not move production still changes what the same version shows (it is no longer latest).
    await push({ name: 'cached', template: 'two' });
    const after = await get('?name=cached', { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ version: 1, labels: ['production'] });
    expect(after.headers.get('etag')).not.toBe(etag);
    expect((await get('?name=cached&label=latest', { 'if-none-match': etag })).status).toBe(200);
  });

  it('lists names a page at a time with their newest version and labels', async () => {
    const owner = await bootstrap(stack, 'prompt-list@spanlog.test', 'Prompt list', 'p', 'pro');
    for (const name of ['beta', 'alpha', 'gamma']) await push({ name, template: name }, owner.apiKey);
    const last = await push({ name: 'alpha', template: 'alpha 2', labels: ['production'] }, owner.apiKey);
    const page = await call('GET', '/api/v1/prompt-templates?limit=2', { key: owner.apiKey });
    expect(page.status).toBe(200);
    expectRateLimitHeaders(page);
    expect(page.body).toEqual({
      data: [
        { name: 'alpha', latestVersion: 2, labels: ['latest', 'production'], updatedAt: last.body.createdAt },
        { name: 'beta', latestVersion: 1, labels: ['latest'], updatedAt: expect.any(String) },
      ],
      meta: { nextCursor: expect.any(String) },
    });
    const rest = await call('GET', `/api/v1/prompt-templates?limit=2&cursor=${page.body.meta.nextCursor}`, { key: owner.apiKey });
    expect(rest.body).toEqual({ data: [expect.objectContaining({ name: 'gamma' })], meta: { nextCursor: null } });
    // Another project's templates are not this key's.
    expect((await call('GET', '/api/v1/prompt-templates?name=greeting', { key: owner.apiKey })).status).toBe(404);
  });

  it('audits every push and label move with the API key as the actor', async () => {
    await push({ name: 'audited', template: 'a', labels: ['production'] });
    await push({ name: 'audited', template: 'b', labels: ['production'], commitMessage: 'better' });
    const rows = await eventually(
      async () =>
        (
          await stack.db.query(
            `SELECT action, actor_user_id, actor_api_key_id, target, details FROM audit_log WHERE org_id = $1 AND target = 'audited' ORDER BY created_at, action`,
            [tenant.orgId],
          )
        ).rows,
      (r) => r.length === 4,
    );
    const byKey = { actor_user_id: null, actor_api_key_id: tenant.apiKeyId, target: 'audited' };
    expect(rows).toEqual(
      expect.arrayContaining([
        {
          ...byKey,
          action: 'prompt_template.created',
          details: { projectId: tenant.projectId, name: 'audited', version: 1, labels: ['production'], commitMessage: null },
        },
        {
          ...byKey,
          action: 'prompt_template.label_moved',
          details: { projectId: tenant.projectId, name: 'audited', label: 'production', fromVersion: null, toVersion: 1 },
        },
        {
          ...byKey,
          action: 'prompt_template.version_pushed',
          details: { projectId: tenant.projectId, name: 'audited', version: 2, labels: ['production'], commitMessage: 'better' },
        },
        {
          ...byKey,
          action: 'prompt_template.label_moved',
          details: { projectId: tenant.projectId, name: 'audited', label: 'production', fromVersion: 1, toVersion: 2 },
        },
      ]),
    );
  });

  describe('spanlog prompts', () => {
    const cli = async (args: string[], env: NodeJS.ProcessEnv = { ...stack.env, SPANLOG_API_KEY: tenant.apiKey }) =>
      runCli([...args, '--api', stack.baseUrl], env);
    /** The stack's environment holds no key: only --key gives one. */
    const keyless = () => stack.env;
    const json = async (args: string[], env?: NodeJS.ProcessEnv) => {
      const res = await cli([...args, '--json'], env);
      if (res.code !== 0) throw new Error(`spanlog ${args.join(' ')} failed: ${res.stderr}`);
      return JSON.parse(res.stdout);
    };

    it('pushes text and chat templates, gets them by version and label, and lists them', async () => {
      const text = await json([
        'prompts',
        'push',
        'cli/summary',
        '--template',
        'Summarize {{text}}',
        '--label',
        'production',
        '--label',
        'staging',
        '--config',
        '{"model":"gpt-4o"}',
        '--message',
        'from the CLI',
      ]);
      expect(text).toEqual({
        name: 'cli/summary',
        version: 1,
        template: 'Summarize {{text}}',
        labels: ['production', 'staging'],
        config: { model: 'gpt-4o' },
        commitMessage: 'from the CLI',
        createdAt: expect.any(String),
      });

      const dir = await mkdtemp(join(tmpdir(), 'spanlog-prompts-'));
      const messages = [
        { role: 'system', content: 'Summarize.' },
        { role: 'user', content: '{{text}}' },
      ];
      writeFileSync(join(dir, 'chat.json'), JSON.stringify(messages));
      writeFileSync(join(dir, 'plain.txt'), 'Line one\nLine two\n');
      const chat = await json(['prompts', 'push', 'cli/summary', '--file', join(dir, 'chat.json'), '--label', 'staging']);
      expect(chat).toMatchObject({ version: 2, template: messages, labels: ['staging'] });
      expect(
        await json(['prompts', 'push', 'cli/plain', '--file', join(dir, 'plain.txt'), '--key', tenant.apiKey], keyless()),
      ).toMatchObject({ version: 1, template: 'Line one\nLine two\n' });

      expect(await json(['prompts', 'get', 'cli/summary'])).toMatchObject({ version: 1, labels: ['production'] });
      expect(await json(['prompts', 'get', 'cli/summary', '--label', 'staging'])).toMatchObject({
        version: 2,
        labels: ['latest', 'staging'],
      });
      expect(await json(['prompts', 'get', 'cli/summary', '--version', '1'])).toMatchObject({ version: 1, template: 'Summarize {{text}}' });
      const human = await cli(['prompts', 'get', 'cli/summary', '--label', 'staging']);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain('cli/summary v2 [latest, staging]');
      expect(human.stdout).toContain('system: Summarize.');

      const listed = await json(['prompts', 'list', '--limit', '100']);
      expect(listed.data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'cli/summary', latestVersion: 2, labels: ['latest', 'production', 'staging'] }),
        ]),
      );
    });

    it('fails with one line on stderr and a non-zero exit', async () => {
      const cases: [string[], RegExp][] = [
        [['prompts', 'push', 'x'], /give --template or --file/],
        [['prompts', 'push', 'x', '--template', 'a', '--file', '/nonexistent'], /give --template or --file, not both/],
        [['prompts', 'push', 'x', '--file', '/nonexistent/prompt.txt'], /--file: cannot read/],
        [['prompts', 'push', 'x', '--template', 'a', '--config', '[1]'], /--config: must be a JSON object/],
        [
          ['prompts', 'push', 'x', '--template', 'a', '--label', 'latest'],
          /labels\[0\]: "latest" is reserved: .* \(400 VALIDATION_ERROR\)/,
        ],
        [
          ['prompts', 'get', 'cli/summary', '--version', '1', '--label', 'staging'],
          /version, label: give one of them, not both \(400 VALIDATION_ERROR\)/,
        ],
        [['prompts', 'get', 'no-such-prompt'], /\(404 NOT_FOUND\)/],
      ];
      const noKey = await cli(['prompts', 'list'], keyless());
      expect(noKey.code).not.toBe(0);
      expect(noKey.stderr).toMatch(/--key or set SPANLOG_API_KEY/);
      for (const [args, message] of cases) {
        const res = await cli(args);
        expect(res.code).not.toBe(0);
        expect(res.stdout).toBe('');
        expect(res.stderr.trim().split('\n')).toHaveLength(1);
        expect(res.stderr).toMatch(message);
      }
    });
  });
});
