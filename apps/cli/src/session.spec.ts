import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoggedIn, SessionEndedError } from './session';
import { readSession, writeSession } from './session-file';

const API = 'http://spanlog.test';
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe(LoggedIn.name, () => {
  let config: string;
  const realFetch = globalThis.fetch;
  const previousXdg = process.env.XDG_CONFIG_HOME;

  beforeEach(() => {
    config = mkdtempSync(join(tmpdir(), 'spanlog-session-'));
    process.env.XDG_CONFIG_HOME = config;
    writeSession({ api: API, access_token: 'old-access', refresh_token: 'refresh-1', expires_at: 0, user: { id: 'u', email: 'u@x.test' } });
  });

  afterEach(() => {
    globalThis.fetch = realFetch;
    process.env.XDG_CONFIG_HOME = previousXdg;
    rmSync(config, { recursive: true, force: true });
  });

  /** A server whose access token is `access-N` after N refreshes; a refresh token used twice ends the session, as reuse detection does. */
  function fakeServer() {
    let refreshes = 0;
    const spent = new Set<string>();
    const calls: string[] = [];
    globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const url = new URL(String(input));
      const auth = new Headers(init?.headers).get('authorization');
      if (url.pathname === '/api/v1/auth/refresh') {
        const { refresh_token: token } = JSON.parse(String(init?.body)) as { refresh_token: string };
        calls.push(`refresh ${token}`);
        await new Promise((r) => setTimeout(r, 20));
        if (spent.has(token)) return json(401, { data: null, error: { code: 'UNAUTHORIZED', message: 'reused' } });
        spent.add(token);
        refreshes++;
        return json(200, {
          data: {
            access_token: `access-${refreshes}`,
            refresh_token: `refresh-${refreshes + 1}`,
            expires_at: 1,
            user: { id: 'u', email: 'u@x.test' },
          },
        });
      }
      calls.push(`${url.pathname} ${auth}`);
      if (auth !== `Bearer access-${refreshes}` || refreshes === 0)
        return json(401, { error: { message: 'expired', data: { code: 'UNAUTHORIZED' } } });
      return json(200, { result: { data: url.pathname } });
    }) as typeof fetch;
    return { calls, refreshCount: () => refreshes };
  }

  it('answers overlapping 401s with one refresh that every call then uses', async () => {
    const server = fakeServer();
    const me = LoggedIn.open(undefined);
    const answers = await Promise.all([
      me.rpc.user.me.query(),
      me.rpc.organization.list.query(),
      me.rpc.project.list.query({ orgId: 'o' }),
    ]);
    expect(answers).toEqual(['/api/trpc/user.me', '/api/trpc/organization.list', '/api/trpc/project.list']);
    expect(server.refreshCount()).toBe(1);
    expect(server.calls.filter((c) => c.startsWith('refresh'))).toEqual(['refresh refresh-1']);
    expect(readSession()).toMatchObject({ access_token: 'access-1', refresh_token: 'refresh-2' });
  });

  it('says the session ended when the refresh is refused', async () => {
    writeSession({ api: API, access_token: 'old-access', refresh_token: 'spent', expires_at: 0, user: { id: 'u', email: 'u@x.test' } });
    const me = LoggedIn.open(undefined);
    globalThis.fetch = (async () => json(401, { data: null, error: { code: 'UNAUTHORIZED', message: 'no' } })) as typeof fetch;
    await expect(me.rpc.user.me.query()).rejects.toMatchObject({
      message: new SessionEndedError().message,
      cause: expect.any(SessionEndedError),
    });
  });

  it('reads an RPC error answer as the one line the CLI prints for any API error', async () => {
    const me = LoggedIn.open(undefined);
    globalThis.fetch = (async () =>
      json(403, { error: { message: 'not a\nmember', code: -32003, data: { code: 'FORBIDDEN', httpStatus: 403 } } })) as typeof fetch;
    await expect(me.rpc.apiKey.list.query({ projectId: 'p' })).rejects.toThrow(/^not a member \(403 FORBIDDEN\)$/);
  });
});
