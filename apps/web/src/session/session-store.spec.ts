import { REFRESH_MARGIN_SECONDS, type KeyValueStorage, LoginError, SessionStore } from './session-store';

class MemoryStorage implements KeyValueStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const tokens = (n: number, expiresAt: number) => ({
  data: { access_token: `access-${n}`, refresh_token: `refresh-${n}`, expires_at: expiresAt, user: { id: 'u', email: 'a@b.c' } },
  error: null,
});

function setup(now = 1_000) {
  const storage = new MemoryStorage();
  const calls: { url: string; body: unknown }[] = [];
  const answers: Response[] = [];
  const fetchFn = async (url: string, init?: RequestInit) => {
    calls.push({ url, body: init?.body ? JSON.parse(init.body as string) : null });
    const answer = answers.shift();
    if (!answer) throw new Error(`unexpected request to ${url}`);
    return answer;
  };
  const clock = { now };
  const store = new SessionStore(storage, fetchFn, () => clock.now);
  const events: string[] = [];
  store.subscribe((e) => events.push(e));
  return { storage, calls, answers, store, events, clock };
}

describe(SessionStore.name, () => {
  it('logs in, keeps the access token in memory and the refresh token in storage', async () => {
    const { store, answers, storage, events } = setup();
    answers.push(json(200, tokens(1, 2_000)));
    await store.login('a@b.c', 'pw');
    expect(await store.accessToken()).toBe('access-1');
    expect([...storage.items.values()]).toEqual(['refresh-1']);
    expect(events).toEqual(['signed-in']);
  });

  it('refuses a wrong password with the server message', async () => {
    const { store, answers } = setup();
    answers.push(json(401, { data: null, error: { code: 'UNAUTHORIZED', message: 'invalid email or password' } }));
    await expect(store.login('a@b.c', 'no')).rejects.toEqual(new LoginError('invalid email or password'));
    expect(store.current).toBeNull();
  });

  it('rotates the refresh token before the access token expires, once for concurrent callers', async () => {
    const { store, answers, calls, clock, storage } = setup();
    answers.push(json(200, tokens(1, 2_000)));
    await store.login('a@b.c', 'pw');
    clock.now = 2_000 - REFRESH_MARGIN_SECONDS + 1;
    answers.push(json(200, tokens(2, 3_000)));
    expect(await Promise.all([store.accessToken(), store.accessToken()])).toEqual(['access-2', 'access-2']);
    expect(calls.filter((c) => c.url.endsWith('/refresh'))).toEqual([
      { url: '/api/v1/auth/refresh', body: { refresh_token: 'refresh-1' } },
    ]);
    expect([...storage.items.values()]).toEqual(['refresh-2']);
  });

  it('resumes after a reload from the stored refresh token', async () => {
    const first = setup();
    first.answers.push(json(200, tokens(1, 2_000)));
    await first.store.login('a@b.c', 'pw');
    const reloaded = new SessionStore(
      first.storage,
      async () => json(200, tokens(2, 3_000)),
      () => 1_500,
    );
    expect(reloaded.resumable).toBe(true);
    expect(await reloaded.accessToken()).toBe('access-2');
    expect(reloaded.current?.user.email).toBe('a@b.c');
  });

  it('ends the session when the refresh token is refused', async () => {
    const { store, answers, storage, events, clock } = setup();
    answers.push(json(200, tokens(1, 2_000)));
    await store.login('a@b.c', 'pw');
    clock.now = 5_000;
    answers.push(json(401, { data: null, error: { code: 'UNAUTHORIZED', message: 'refresh token expired' } }));
    expect(await store.accessToken()).toBeNull();
    expect(storage.items.size).toBe(0);
    expect(events).toEqual(['signed-in', 'expired']);
  });

  it('keeps the session when the network fails during a refresh', async () => {
    const storage = new MemoryStorage();
    storage.setItem('spanlog.refresh', 'refresh-1');
    const store = new SessionStore(
      storage,
      () => Promise.reject(new TypeError('network down')),
      () => 1_000,
    );
    expect(await store.refresh()).toBe(false);
    expect(store.resumable).toBe(true);
  });

  it('logs out on the server with the access token and forgets both tokens', async () => {
    const { store, answers, calls, storage, events } = setup();
    answers.push(json(200, tokens(1, 2_000)), json(200, { data: { success: true }, error: null }));
    await store.login('a@b.c', 'pw');
    await store.logout();
    expect(calls[1]?.url).toBe('/api/v1/auth/logout');
    expect(storage.items.size).toBe(0);
    expect(store.current).toBeNull();
    expect(events).toEqual(['signed-in', 'signed-out']);
  });
});
