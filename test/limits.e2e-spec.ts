import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { CREATION_RATE, HTTP_TIMEOUTS, MAX_ACTIVE_API_KEYS_PER_PROJECT } from '@app/domain';
import { type Tenant, bootstrap, data, eventually, login, mutate, query, setPlan } from './support/api';
import { smallBatch } from './support/factories';
import { NATIVE_TRACES, OTLP_TRACES, postWithKey } from './support/ingest';
import { usageOf } from './support/rows';
import { type Stack, runCli, startStack } from './support/stack';

const RATE_LIMIT_BODY = { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded, retry after 1 second' } };

describe('rate limits, usage counters and quotas', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  }, 120_000);

  afterAll(() => stack?.stop());

  /** Fires `n` requests at once; answers in the order they were sent. */
  const burst = (n: number, request: () => Promise<Response>) => Promise.all(Array.from({ length: n }, request));

  /**
   * A burst whose answers all came within one second, each after a fresh window. The claims
   * are about requests inside one second; a burst a busy machine slowed past that proves
   * nothing, so it is sent again.
   */
  const burstWithinASecond = async (n: number, request: () => Promise<Response>) => {
    for (let attempt = 1; ; attempt++) {
      await sleep(1_100);
      const started = Date.now();
      const answers = await burst(n, request);
      if (Date.now() - started < 900 || attempt === 5) return { answers, startedSecond: Math.floor(started / 1_000) };
    }
  };

  describe('per API key, rolling one-second window (SPEC 8.2)', () => {
    let free: Tenant;
    let other: Tenant;

    beforeAll(async () => {
      free = await bootstrap(stack, 'rate@spanlog.test', 'Rate', 'rate');
      other = await bootstrap(stack, 'rate2@spanlog.test', 'Rate2', 'rate2');
    });

    it('lets exactly 100 of 150 requests through on Free, with the headers and the 429 body', async () => {
      const { answers, startedSecond: before } = await burstWithinASecond(150, () =>
        postWithKey(stack, free.apiKey, NATIVE_TRACES, { batch: [] }),
      );
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(100);
      expect(statuses.filter((s) => s === 429)).toHaveLength(50);

      for (const res of answers) {
        expect(res.headers.get('ratelimit-limit')).toBe('100');
        const reset = Number(res.headers.get('ratelimit-reset'));
        expect(reset).toBeGreaterThanOrEqual(before);
        expect(reset).toBeLessThanOrEqual(before + 3);
      }
      const remaining = answers.filter((r) => r.status === 201).map((r) => Number(r.headers.get('ratelimit-remaining')));
      expect(new Set(remaining)).toEqual(new Set(Array.from({ length: 100 }, (_, i) => i)));

      const refused = answers.find((r) => r.status === 429) as Response;
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(await refused.json()).toEqual(RATE_LIMIT_BODY);

      // Another key has its own window, even while this one is full.
      expect((await postWithKey(stack, other.apiKey, NATIVE_TRACES, { batch: [] })).status).toBe(201);
      // Reads count against the same per-key bucket as writes.
      expect((await fetch(`${stack.baseUrl}/api/v1/traces`, { headers: { authorization: `Bearer ${free.apiKey}` } })).status).toBe(429);

      await sleep(1_100);
      expect((await postWithKey(stack, free.apiKey, NATIVE_TRACES, { batch: [] })).status).toBe(201);
    });

    it('never limits the health check or the dashboard RPC', async () => {
      const health = await burst(250, () => fetch(`${stack.baseUrl}/api/v1/health`));
      expect(health.every((r) => r.status === 200)).toBe(true);
      expect(health[0].headers.get('ratelimit-limit')).toBeNull();
      const session = await login(stack, 'rate@spanlog.test');
      const rpc = await burst(150, () =>
        fetch(`${stack.baseUrl}/api/trpc/user.me`, { headers: { authorization: `Bearer ${session.access_token}` } }),
      );
      expect(rpc.every((r) => r.status === 200)).toBe(true);
    });

    it('counts the auth endpoints per client IP, answering in their envelope', async () => {
      const { answers } = await burstWithinASecond(130, () =>
        fetch(`${stack.baseUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      );
      expect(answers.filter((r) => r.status === 400)).toHaveLength(100);
      const refused = answers.filter((r) => r.status === 429);
      expect(refused).toHaveLength(30);
      expect(refused[0].headers.get('retry-after')).toBe('1');
      expect(await refused[0].json()).toEqual({
        data: null,
        error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded, retry after 1 second' },
      });
    });
  });

  describe('usage and quotas (SPEC 2.7, 8.4)', () => {
    const month = new Date().toISOString().slice(0, 7);
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 15)).toISOString().slice(0, 7);
    const counters = (orgId: string) => usageOf(stack, orgId, month);
    /** Waits until nothing is left to count: the outbox is empty and the counters stopped moving. */
    const settled = async (orgId: string) => {
      let last = '';
      await eventually(
        async () => {
          const [{ queued }] = (await stack.db.query('SELECT count(*)::int AS queued FROM usage_outbox')).rows;
          const now = JSON.stringify(await counters(orgId));
          const stable = queued === 0 && now === last;
          last = now;
          await sleep(1_000);
          return stable;
        },
        (stable) => stable,
      );
    };

    it('counts each new trace and span once, however often a request is retried or a row is written again, and shows it in usage.get and spanlog usage', async () => {
      const tenant = await bootstrap(stack, 'usage@spanlog.test', 'Usage', 'usage');
      const batches = Array.from({ length: 5 }, () => smallBatch(`usage-${randomUUID()}`));
      for (const batch of batches) {
        expect((await postWithKey(stack, tenant.apiKey, NATIVE_TRACES, batch)).status).toBe(201);
        // The same body again (deduplicated by the stream), then the same trace and span in a new request.
        expect((await postWithKey(stack, tenant.apiKey, NATIVE_TRACES, batch)).status).toBe(201);
        const update = { ...batch.batch[1], id: `${batch.batch[1].id}-update`, type: 'span-update', timestamp: new Date().toISOString() };
        expect((await postWithKey(stack, tenant.apiKey, NATIVE_TRACES, { batch: [...batch.batch, update] })).status).toBe(201);
      }
      await eventually(
        () => counters(tenant.orgId),
        (c) => c.traces >= 5,
      );
      await settled(tenant.orgId);
      expect(await counters(tenant.orgId)).toEqual({ traces: 5, spans: 5 });

      const session = await login(stack, 'usage@spanlog.test');
      expect(data(await query(stack, session.access_token, 'usage.get', { orgId: tenant.orgId }))).toEqual({
        month,
        plan: 'free',
        traces: 5,
        spans: 5,
        evalRuns: 0,
        limits: { traces: 10_000, evalRuns: 500 },
        overage: { traces: 0, evalRuns: 0 },
      });

      const env = { ...stack.env, XDG_CONFIG_HOME: `/tmp/spanlog-usage-${randomUUID()}` };
      expect(
        (
          await runCli(
            ['login', '--api', stack.baseUrl, '--email', 'usage@spanlog.test', '--password', 'correct horse battery staple'],
            env,
          )
        ).code,
      ).toBe(0);
      const cli = await runCli(['usage', '--org', tenant.orgId, '--json'], env);
      expect(cli.code).toBe(0);
      expect(JSON.parse(cli.stdout)).toMatchObject({ month, plan: 'free', traces: 5, spans: 5 });
    });

    it('blocks Free at its monthly trace limit with 403 QUOTA_EXCEEDED, and lets it ingest again after an upgrade, counting the overage', async () => {
      const tenant = await bootstrap(stack, 'quota@spanlog.test', 'Quota', 'quota');
      // Last month's usage does not count against this month.
      await stack.db.query('INSERT INTO usage_counters (org_id, month, traces) VALUES ($1, $2, 999999)', [tenant.orgId, lastMonth]);
      // One trace short of the limit, then the last one through the API.
      await stack.db.query('INSERT INTO usage_counters (org_id, month, traces) VALUES ($1, $2, 9999)', [tenant.orgId, month]);
      expect((await postWithKey(stack, tenant.apiKey, NATIVE_TRACES, smallBatch(`quota-${randomUUID()}`))).status).toBe(201);
      await eventually(
        () => counters(tenant.orgId),
        (c) => c.traces === 10_000,
      );

      // The API reads counters at most 5 s old.
      const refused = await eventually(
        () => postWithKey(stack, tenant.apiKey, NATIVE_TRACES, smallBatch(`quota-${randomUUID()}`)),
        (r) => r.status !== 201,
        10_000,
      );
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('QUOTA_EXCEEDED');
      expect(body.error.message).toMatch(/free plan.*10,000 traces.*resets at \d{4}-\d{2}-01T00:00:00\.000Z/);
      const otlp = await postWithKey(stack, tenant.apiKey, OTLP_TRACES, '{}');
      expect(otlp.status).toBe(403);

      await setPlan(stack, tenant.orgId, 'pro');
      await settled(tenant.orgId);
      await stack.db.query('UPDATE usage_counters SET traces = 49999 WHERE org_id = $1 AND month = $2', [tenant.orgId, month]);
      for (let i = 0; i < 3; i++)
        expect((await postWithKey(stack, tenant.apiKey, NATIVE_TRACES, smallBatch(`quota-${randomUUID()}`))).status).toBe(201);
      await eventually(
        () => counters(tenant.orgId),
        (c) => c.traces === 50_002,
      );
      const session = await login(stack, 'quota@spanlog.test');
      expect(data(await query(stack, session.access_token, 'usage.get', { orgId: tenant.orgId }))).toMatchObject({
        plan: 'pro',
        traces: 50_002,
        limits: { traces: 50_000 },
        overage: { traces: 2 },
      });
    });
  });
  describe('creation limits (issue 24 item 3)', () => {
    it('lets a user own 2 Free organizations, refusing a third with 403 QUOTA_EXCEEDED naming the limit, and counts only Free ones', async () => {
      const owner = await bootstrap(stack, 'orgs@spanlog.test', 'First', 'p');
      const { access_token: token } = await login(stack, 'orgs@spanlog.test');
      data(await mutate(stack, token, 'organization.create', { name: 'Second' }));
      const third = await mutate(stack, token, 'organization.create', { name: 'Third' });
      expect(third.status).toBe(403);
      expect(third.body.error.message).toMatch(/at most 2 Free organizations/);
      expect(third.body.error.data.code).toBe('FORBIDDEN');
      // An upgraded organization is no longer a Free one.
      await setPlan(stack, owner.orgId, 'pro');
      data(await mutate(stack, token, 'organization.create', { name: 'Third' }));
    });

    it(`refuses a project's active key beyond ${MAX_ACTIVE_API_KEYS_PER_PROJECT} with 403 naming the limit, and takes one again after a revocation`, async () => {
      const owner = await bootstrap(stack, 'keys-cap@spanlog.test', 'Keys', 'p');
      // The other keys straight in the table: the per-user creation rate would take minutes to make them.
      await stack.db.query(
        `INSERT INTO api_keys (project_id, name, prefix, key_hash) SELECT $1, 'k' || i, 'sl_x', md5(random()::text) || md5(random()::text) FROM generate_series(2, $2) i`,
        [owner.projectId, MAX_ACTIVE_API_KEYS_PER_PROJECT],
      );
      const { access_token: token } = await login(stack, 'keys-cap@spanlog.test');
      const refused = await mutate(stack, token, 'apiKey.create', { projectId: owner.projectId, name: 'one too many' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(new RegExp(`at most ${MAX_ACTIVE_API_KEYS_PER_PROJECT} active API keys`));
      data(await mutate(stack, token, 'apiKey.revoke', { projectId: owner.projectId, id: owner.apiKeyId }));
      data(await mutate(stack, token, 'apiKey.create', { projectId: owner.projectId, name: 'in its place' }));
    });

    it(`rate limits a user's creations to ${CREATION_RATE.perWindow} a minute with 429 and Retry-After, and other users not at all`, async () => {
      const owner = await bootstrap(stack, 'busy@spanlog.test', 'Busy', 'p', 'team');
      await bootstrap(stack, 'calm@spanlog.test', 'Calm', 'p', 'team');
      const { access_token: token } = await login(stack, 'busy@spanlog.test');
      const created: { status: number }[] = [];
      for (let i = 0; i < CREATION_RATE.perWindow; i++) {
        const [procedure, input] =
          i % 2
            ? ['apiKey.create', { projectId: owner.projectId, name: `k${i}` }]
            : ['project.create', { orgId: owner.orgId, name: `p${i}` }];
        created.push(await mutate(stack, token, procedure, input));
      }
      expect(created.map((a) => a.status)).toEqual(created.map(() => 200));
      const refused = await fetch(`${stack.baseUrl}/api/trpc/apiKey.create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ projectId: owner.projectId, name: 'one more' }),
      });
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(CREATION_RATE.windowMs / 1_000);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /at most \d+ organizations, projects and API keys a minute/,
      );
      const calm = await login(stack, 'calm@spanlog.test');
      data(await mutate(stack, calm.access_token, 'organization.create', { name: 'Calm 2' }));
    });
  });

  describe('slow clients (issue 18 item 10)', () => {
    /**
     * Opens a connection, sends `head` and then one byte of `trickle` a second; resolves with
     * what the server answered once it closes the connection, or null if it is still open
     * after `waitMs`.
     */
    const trickle = (head: string, trickle: string, waitMs: number) =>
      new Promise<string | null>((resolve) => {
        const { hostname, port } = new URL(stack.baseUrl);
        const socket = connect(Number(port), hostname);
        let answer = '';
        let sent = 0;
        const drip = setInterval(() => {
          if (sent < trickle.length) socket.write(trickle[sent++]);
        }, 1_000);
        const giveUp = setTimeout(() => {
          clearInterval(drip);
          socket.destroy();
          resolve(null);
        }, waitMs);
        socket.on('data', (d: Buffer) => (answer += d.toString()));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearInterval(drip);
          clearTimeout(giveUp);
          resolve(answer);
        });
        socket.write(head);
      });

    it(
      'answers 408 and closes the connection of a body sent a byte a second, within the request time-out',
      async () => {
        const body = JSON.stringify({ batch: [] }).padEnd(200, ' ');
        const head = `POST /api/v1/traces HTTP/1.1\r\nHost: spanlog\r\nAuthorization: Bearer sl_slow\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
        const stalledHeaders = 'GET /api/v1/health HTTP/1.1\r\nHost: spanlog\r\nX-Slow: ' + 'a'.repeat(200);
        const bound = HTTP_TIMEOUTS.requestMs + HTTP_TIMEOUTS.checkIntervalMs + 5_000;
        const [slowBody, stalled] = await Promise.all([trickle(head, body, bound), trickle(stalledHeaders, '', bound)]);
        expect(slowBody).toMatch(/^HTTP\/1\.1 408 /);
        expect(stalled).toMatch(/^HTTP\/1\.1 408 /);
      },
      HTTP_TIMEOUTS.requestMs + 20_000,
    );
  });
});
