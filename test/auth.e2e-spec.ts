import { createHmac } from 'node:crypto';
import { PAYLOAD_LIMITS } from '@app/domain';
import { type Session, type Tenant, bootstrap, data, login, query, send } from './support/api';
import { smallBatch } from './support/factories';
import { type Stack, startStack } from './support/stack';

const EMAIL = 'auth@spanlog.test';

/** The claims of a JWT, read without verifying it. */
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;

/** An HS256 JWT of `claims` signed with `secret`: what someone holding the secret, or a bug, could issue. */
function signed(claims: Record<string, unknown>, secret: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

describe('auth endpoints (POST /api/v1/auth/login, /refresh, /logout)', () => {
  let stack: Stack;
  let tenant: Tenant;

  const refresh = (token: unknown) => send(stack, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: token } });
  const logout = (token: string | undefined, init: { body?: string; headers?: Record<string, string> } = {}) =>
    send(stack, 'POST', '/api/v1/auth/logout', { token, ...init });
  const me = (token: string) => query(stack, token, 'user.me');

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, EMAIL, 'Auth', 'auth');
  }, 120_000);

  afterAll(() => stack?.stop());

  it('logs in with SPEC 2.5 session fields in the {data, error} envelope, whatever the e-mail case', async () => {
    const res = await send(stack, 'POST', '/api/v1/auth/login', {
      body: { email: EMAIL.toUpperCase(), password: 'correct horse battery staple' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        expires_at: expect.any(Number),
        user: { id: tenant.userId, email: EMAIL },
      },
      error: null,
    });
    const session = res.body.data as Session;
    expect(Number.isInteger(session.expires_at)).toBe(true);
    // expires_at is the access token's own expiry, not an estimate beside it.
    expect(claimsOf(session.access_token)).toMatchObject({ sub: tenant.userId, exp: session.expires_at });
    expect(data(await me(session.access_token))).toEqual({ id: tenant.userId, email: EMAIL });
  });

  it('rotates both tokens on refresh; a spent refresh token is refused and its reuse revokes the whole session', async () => {
    const first = await login(stack, EMAIL);
    const rotated = await refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    const second = rotated.body.data as Session;
    expect(rotated.body).toMatchObject({ error: null, data: { user: { id: tenant.userId, email: EMAIL } } });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(claimsOf(second.access_token).sid).toBe(claimsOf(first.access_token).sid);
    expect((await me(second.access_token)).status).toBe(200);

    const reused = await refresh(first.refresh_token);
    expect(reused.status).toBe(401);
    expect(reused.body).toEqual({ data: null, error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/already used/) } });
    // The reuse revoked the family: the newest refresh token and every access token of the session die with it.
    expect((await refresh(second.refresh_token)).status).toBe(401);
    expect((await me(second.access_token)).status).toBe(401);
    expect((await me(first.access_token)).status).toBe(401);
  });

  it('logs out: the access token is refused from then on, and other sessions of the user live on', async () => {
    const ending = await login(stack, EMAIL);
    const other = await login(stack, EMAIL);
    expect((await me(ending.access_token)).status).toBe(200);

    const res = await logout(ending.access_token);
    expect(res).toEqual({ status: 200, body: { data: { success: true }, error: null } });
    const after = await me(ending.access_token);
    expect(after.status).toBe(401);
    expect(after.body.error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    expect((await logout(ending.access_token)).status).toBe(401);
    expect((await refresh(ending.refresh_token)).status).toBe(401);

    expect((await me(other.access_token)).status).toBe(200);
  });

  it.each([
    ['an empty body with a JSON content type', { headers: { 'content-type': 'application/json' } }],
    ['an empty JSON object', { body: '{}', headers: { 'content-type': 'application/json' } }],
    ['no body and no content type', {}],
  ])('accepts logout with %s', async (_, init) => {
    const session = await login(stack, EMAIL);
    expect(await logout(session.access_token, init)).toEqual({ status: 200, body: { data: { success: true }, error: null } });
  });

  it('answers 401 in the envelope when logout has no token', async () => {
    expect(await logout(undefined)).toEqual({
      status: 401,
      body: { data: null, error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/missing access token/) } },
    });
  });

  it.each([
    ['login', {}, 'email: is required; password: is required'],
    ['login', { email: EMAIL }, 'password: is required'],
    ['login', { password: 'x' }, 'email: is required'],
    ['login', { email: '', password: 'x' }, 'email: is required'],
    ['login', { email: 5, password: 'x' }, 'email: must be a string'],
    ['refresh', {}, 'refresh_token: is required'],
    ['refresh', { refresh_token: null }, 'refresh_token: is required'],
  ])('answers 400 when %s gets %p, naming the field', async (endpoint, body, message) => {
    const res = await send(stack, 'POST', `/api/v1/auth/${endpoint}`, { body });
    expect(res).toEqual({ status: 400, body: { data: null, error: { code: 'VALIDATION_ERROR', message } } });
  });

  it('answers 400 to a login without any body', async () => {
    const res = await send(stack, 'POST', '/api/v1/auth/login');
    expect(res).toEqual({
      status: 400,
      body: { data: null, error: { code: 'VALIDATION_ERROR', message: 'email: is required; password: is required' } },
    });
  });

  it('answers a wrong password and an unknown e-mail with the same 401 (both verified by argon2, see passwords.spec.ts)', async () => {
    const wrongPassword = await send(stack, 'POST', '/api/v1/auth/login', { body: { email: EMAIL, password: 'not the password' } });
    const unknownEmail = await send(stack, 'POST', '/api/v1/auth/login', {
      body: { email: 'nobody@spanlog.test', password: 'not the password' },
    });
    expect(wrongPassword).toEqual({
      status: 401,
      body: { data: null, error: { code: 'UNAUTHORIZED', message: 'invalid email or password' } },
    });
    expect(unknownEmail).toEqual(wrongPassword);
  });

  it('refuses a body over PAYLOAD_LIMITS.default (1 MB) with 413 in the envelope, and takes one of exactly 1 MB', async () => {
    // JSON whitespace pads the body without touching a field, so only its size differs.
    const padded = (fields: object, size: number) => {
      const json = JSON.stringify(fields);
      return `${json.slice(0, -1)}${' '.repeat(size - Buffer.byteLength(json))}}`;
    };
    const session = await login(stack, EMAIL);
    const cases = [
      { endpoint: 'login', fields: { email: EMAIL, password: 'correct horse battery staple' }, status: 200 },
      { endpoint: 'refresh', fields: { refresh_token: 'slr_not-a-token' }, status: 401 },
      { endpoint: 'logout', fields: {}, status: 200, token: session.access_token },
    ];
    for (const { endpoint, fields, status, token } of cases) {
      const over = await send(stack, 'POST', `/api/v1/auth/${endpoint}`, { token, body: padded(fields, PAYLOAD_LIMITS.default + 1) });
      expect({ endpoint, ...over }).toEqual({
        endpoint,
        status: 413,
        body: { data: null, error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/at most 1048576/) } },
      });
      const atLimit = padded(fields, PAYLOAD_LIMITS.default);
      expect(Buffer.byteLength(atLimit)).toBe(PAYLOAD_LIMITS.default);
      expect({ endpoint, status: (await send(stack, 'POST', `/api/v1/auth/${endpoint}`, { token, body: atLimit })).status }).toEqual({
        endpoint,
        status,
      });
    }
  });

  it('refuses a refresh token that was never issued', async () => {
    expect(await refresh('slr_not-a-token')).toEqual({
      status: 401,
      body: { data: null, error: { code: 'UNAUTHORIZED', message: expect.any(String) } },
    });
  });

  it('never takes an API key for a session token, nor a session token for an API key', async () => {
    const keyOnLogout = await logout(tenant.apiKey);
    expect(keyOnLogout.status).toBe(401);
    expect(keyOnLogout.body).toMatchObject({ data: null, error: { code: 'UNAUTHORIZED' } });
    const keyOnRpc = await query(stack, tenant.apiKey, 'organization.list');
    expect(keyOnRpc.status).toBe(401);
    expect(keyOnRpc.body.error.data).toMatchObject({ code: 'UNAUTHORIZED' });

    const session = await login(stack, EMAIL);
    expect((await send(stack, 'POST', '/api/v1/traces', { token: session.access_token, body: smallBatch('session-token') })).status).toBe(
      401,
    );
    expect((await send(stack, 'GET', '/api/v1/traces', { token: session.access_token })).status).toBe(401);
    // The key itself still works where it belongs.
    expect((await send(stack, 'POST', '/api/v1/traces', { token: tenant.apiKey, body: smallBatch('api-key') })).status).toBe(201);
  });

  it('refuses an access token whose signature was tampered with', async () => {
    const session = await login(stack, EMAIL);
    const [header, payload, signature] = session.access_token.split('.');
    const forged = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await me(forged)).status).toBe(401);
    expect((await logout(forged)).status).toBe(401);
  });

  describe('tokens signed with the secret but not as the service issues them', () => {
    const secret = () => stack.env.JWT_SECRET as string;
    const inAMinute = () => Math.floor(Date.now() / 1000) + 60;

    it('refuses a session id that is not a UUID with 401, not a failed query', async () => {
      const token = signed({ sub: tenant.userId, sid: 'not-a-session', typ: 'access', exp: inAMinute() }, secret());
      expect(await me(token)).toMatchObject({ status: 401, body: { error: { message: 'access token is invalid or expired' } } });
      expect(await logout(token)).toEqual({
        status: 401,
        body: { data: null, error: { code: 'UNAUTHORIZED', message: 'access token is invalid or expired' } },
      });
    });

    it('refuses a token without an expiry, even for a live session', async () => {
      const { sid } = claimsOf((await login(stack, EMAIL)).access_token);
      const forever = signed({ sub: tenant.userId, sid, typ: 'access' }, secret());
      expect(await me(forever)).toMatchObject({ status: 401, body: { error: { message: 'access token is invalid or expired' } } });
      // The same claims with an expiry are accepted: the expiry is what was missing.
      expect((await me(signed({ sub: tenant.userId, sid, typ: 'access', exp: inAMinute() }, secret()))).status).toBe(200);
    });
  });
});
