import { randomBytes, randomUUID } from 'node:crypto';
import { PASSWORD, type Session, type Tenant, bootstrap, data, eventually, login, mutate, send } from './support/api';
import { Stack, freePort } from './support/stack';

/**
 * Secrets never reach the logs (issue 18 item 5): the apps run at the most verbose level,
 * every secret the test uses is sent where a careless log line would pick it up (headers,
 * query strings, bodies of failing requests, a statement the database refuses), and then
 * nothing either app wrote may contain any of them.
 */
describe('secrets in logs', () => {
  let stack: Stack;
  let tenant: Tenant;
  let session: Session;
  const secret = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;
  const unknownKey = secret('sl_');
  const wrongPassword = secret('wrong-password-');
  const evaluatorHeader = secret('Bearer eval-');
  let closedPort: number;

  beforeAll(async () => {
    stack = await Stack.start({ LOG_LEVEL: 'trace' }, { name: 'secrets', keepOutput: true });
    tenant = await bootstrap(stack, 'secrets@spanlog.test', 'Secrets', 'secrets', 'pro');
    session = await login(stack, 'secrets@spanlog.test');
    closedPort = await freePort();
  }, 120_000);

  afterAll(() => stack?.stop());

  const logs = () => `${stack.recentOutput('api')}\n${stack.recentOutput('processor')}`;

  it('keeps API keys, passwords, tokens and evaluator headers out of every log line, even of failures', async () => {
    // API keys: in the header (valid and unknown) and in query strings, where none is accepted.
    const at = new Date().toISOString();
    const traceId = `secrets-${randomUUID()}`;
    const batch = [
      { id: `${traceId}-t`, type: 'trace-create', timestamp: at, body: { id: traceId, name: 'run' } },
      {
        id: `${traceId}-s`,
        type: 'span-create',
        timestamp: at,
        body: { id: `${traceId}-s`, traceId, name: 'chat', type: 'LLM', startTime: at, output: 'an answer' },
      },
    ];
    expect((await send(stack, 'GET', '/api/v1/traces', { token: unknownKey })).status).toBe(401);
    expect((await send(stack, 'GET', `/api/v1/traces?limit=5&api_key=${tenant.apiKey}`)).status).toBe(401);
    expect((await send(stack, 'GET', `/api/v1/traces?apiKey=${unknownKey}&key=${tenant.apiKey}`)).status).toBe(401);
    expect((await send(stack, 'GET', `/api/v1/traces?token=${session.access_token}`)).status).toBe(401);

    // Passwords and tokens: wrong and right, in bodies and query strings, a refresh token reused.
    expect(
      (await send(stack, 'POST', '/api/v1/auth/login', { body: { email: 'secrets@spanlog.test', password: wrongPassword } })).status,
    ).toBe(401);
    expect(
      (
        await send(stack, 'POST', `/api/v1/auth/login?password=${encodeURIComponent(PASSWORD)}`, {
          body: { email: 'secrets@spanlog.test' },
        })
      ).status,
    ).toBe(400);
    const spent = await login(stack, 'secrets@spanlog.test');
    const rotated = await send(stack, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: spent.refresh_token } });
    expect(rotated.status).toBe(200);
    expect((await send(stack, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: spent.refresh_token } })).status).toBe(401);
    expect((await send(stack, 'POST', `/api/v1/auth/refresh?refresh_token=${rotated.body.data.refresh_token}`, { body: {} })).status).toBe(
      400,
    );

    // An evaluator header: a write the database refuses, a mutation reached by GET, and a webhook that cannot be reached.
    const evaluator = {
      projectId: tenant.projectId,
      name: 'judge',
      url: `http://127.0.0.1:${closedPort}/score`,
      headers: { Authorization: evaluatorHeader },
      timeoutMs: 1_000,
      retries: 0,
    };
    await stack.db.query('ALTER TABLE evaluators ADD CONSTRAINT refuses_writes CHECK (false) NOT VALID');
    expect((await mutate(stack, session.access_token, 'evaluator.create', evaluator)).status).toBe(500);
    const viaGet = `/api/trpc/evaluator.create?input=${encodeURIComponent(JSON.stringify(evaluator))}`;
    expect((await send(stack, 'GET', viaGet, { token: session.access_token })).status).toBe(500);
    await stack.db.query('ALTER TABLE evaluators DROP CONSTRAINT refuses_writes');
    data(await mutate(stack, session.access_token, 'evaluator.create', evaluator));
    expect((await send(stack, 'POST', '/api/v1/traces', { token: tenant.apiKey, body: { batch } })).status).toBe(201);
    await eventually(
      async () => (await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey })).body?.scores ?? [],
      (scores: { source: string }[]) => scores.some((s) => s.source === 'EVAL'),
      30_000,
    );

    const output = logs();
    // The logs were written and hold these requests, so finding no secret in them means something.
    expect(output).toContain('rpc procedure failed');
    expect(output).toContain('api_key=[REDACTED]');
    expect(output).toContain('/api/trpc/evaluator.create?input=[REDACTED]');
    const secrets = {
      apiKey: tenant.apiKey,
      unknownKey,
      password: PASSWORD,
      wrongPassword,
      accessToken: session.access_token,
      spentRefreshToken: spent.refresh_token,
      refreshToken: rotated.body.data.refresh_token as string,
      evaluatorHeader,
      evaluatorHeaderToken: evaluatorHeader.slice('Bearer '.length),
    };
    const found = Object.entries(secrets)
      .filter(([, value]) => output.includes(value) || output.includes(encodeURIComponent(value)))
      .map(([name]) => name);
    expect(found).toEqual([]);
  });
});
