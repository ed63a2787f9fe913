import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { hashApiKey } from '@app/domain';
import { ApiKeyLookup, PrincipalCache, TenancyRepository } from '@app/persistence';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { API_KEY_CHANGES_CHANNEL, ApiKeyChangeListener } from './api-key-change-listener';

/** Long enough that only a notification can drop an entry within a test. */
const TTL_MS = 60_000;

async function until(done: () => boolean, timeoutMs = 5_000): Promise<number> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now() - start;
}

describe('API key principals cached while Postgres notifies key changes', () => {
  const db = useTestDatabase();
  const listeners: ApiKeyChangeListener[] = [];

  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((l) => l.close()));
  });

  async function newKey(): Promise<{ secret: string; hash: string; id: string; orgId: string; projectId: string }> {
    const { orgId, projectId } = await seedProject(db.ds, { project: 'agents' });
    const [user] = await db.ds.query(`INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`, [
      `${randomUUID()}@spanlog.test`,
    ]);
    const key = await new TenancyRepository(db.ds).createApiKey(projectId, 'ingest', user.id);
    if (!key) throw new Error('no limit was given, yet the key was refused');
    return { secret: key.apiKey, hash: hashApiKey(key.apiKey), id: key.id, orgId, projectId };
  }

  /** A cache with its listener; `state` follows the listener's callbacks. */
  async function listening(firstRetryMs = 50) {
    const state = { listening: 0, lost: 0 };
    const applicationName = `spanlog-test-${randomUUID().slice(0, 8)}`;
    const cache = new PrincipalCache(TTL_MS);
    const listener = ApiKeyChangeListener.start(cache, {
      url: db.url,
      applicationName,
      firstRetryMs,
      onListening: () => state.listening++,
      onLost: () => state.lost++,
    });
    listeners.push(listener);
    await until(() => state.listening === 1);
    const dropConnection = () =>
      db.ds.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    return { cache, lookup: new ApiKeyLookup(db.ds, cache, listener), state, dropConnection };
  }

  /** Counts the statements this test's code sends on the pool that read the known keys. */
  function countQueries() {
    const original = db.ds.query.bind(db.ds);
    let reads = 0;
    db.ds.query = ((sql: string, ...rest: unknown[]) => {
      if (sql.includes('left(key_hash')) reads++;
      return (original as (...args: unknown[]) => Promise<unknown>)(sql, ...rest);
    }) as typeof db.ds.query;
    return { count: () => reads, stop: () => void (db.ds.query = original) };
  }

  /** A change no trigger sees (replica mode): only a look-up that asks Postgres notices it. */
  const silently = (sql: string, params: unknown[]) =>
    db.ds.transaction(async (m) => {
      await m.query('SET LOCAL session_replication_role = replica');
      await m.query(sql, params);
    });

  it('refuses a key that resolved to nothing again without asking Postgres, whether or not the listener is connected', async () => {
    const key = await newKey();
    await silently('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    for (const lookup of [new ApiKeyLookup(db.ds, new PrincipalCache(TTL_MS)), (await listening()).lookup]) {
      expect(await lookup.find(key.secret)).toBeNull();
      await silently('UPDATE api_keys SET revoked_at = NULL WHERE id = $1', [key.id]);
      expect(await lookup.find(key.secret)).toBeNull();
      expect(await lookup.mayExist(key.secret)).toBe(false);
      await silently('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    }
  });

  it('tells a key that exists from one that does not without a query per call: a key created or revoked just before is known as such', async () => {
    const { lookup } = await listening();
    const queries = countQueries();
    const before = await newKey();
    expect(await lookup.mayExist(before.secret)).toBe(true);
    const read = queries.count();
    for (let i = 0; i < 50; i++) expect(await lookup.mayExist(`sl_${randomUUID()}`)).toBe(false);
    expect(await lookup.mayExist(before.secret)).toBe(true);
    expect(queries.count()).toBe(read);
    // Created and revoked with no wait: the listener has caught up with them before the answer.
    for (let i = 0; i < 5; i++) {
      const created = await newKey();
      expect(await lookup.mayExist(created.secret)).toBe(true);
      await db.ds.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [created.id]);
      expect(await lookup.mayExist(`sl_${randomUUID()}`)).toBe(false);
      expect(await lookup.mayExist(created.secret)).toBe(false);
    }
    queries.stop();
  });

  it('without a listener reads the known keys again at most once a second', async () => {
    const lookup = new ApiKeyLookup(db.ds, new PrincipalCache(TTL_MS));
    const queries = countQueries();
    expect(await lookup.mayExist(`sl_${randomUUID()}`)).toBe(false);
    for (let i = 0; i < 50; i++) await lookup.mayExist(`sl_${randomUUID()}`);
    expect(queries.count()).toBe(1);
    const key = await newKey();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await lookup.mayExist(key.secret)).toBe(true);
    queries.stop();
  });

  it('answers a key it has resolved from the cache, without asking Postgres', async () => {
    const { lookup } = await listening();
    const key = await newKey();
    expect(await lookup.find(key.secret)).toMatchObject({ plan: 'free' });
    await silently(`UPDATE organizations SET plan = 'pro' WHERE id = $1`, [key.orgId]);
    expect(await lookup.find(key.secret)).toMatchObject({ plan: 'free' });
  });

  it('serves a key from the cache, and refuses it on the first look-up after its revocation commits', async () => {
    const { cache, lookup } = await listening();
    // Repeated: the notification itself often arrives after the next look-up would have been answered.
    for (let i = 0; i < 20; i++) {
      const key = await newKey();
      const principal = await lookup.find(key.secret);
      expect(principal).toMatchObject({ apiKeyId: key.id, projectId: key.projectId, orgId: key.orgId, plan: 'free' });
      expect(cache.get(key.hash)).toEqual(principal);
      await db.ds.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
      expect(await lookup.find(key.secret)).toBeNull();
    }
  });

  it('drops the cached principals as soon as a change is notified, with no look-up asking', async () => {
    const { cache, lookup } = await listening();
    const key = await newKey();
    await lookup.find(key.secret);
    await db.ds.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    await until(() => cache.get(key.hash) === undefined, 1_000);
  });

  it('is notified of every change to what a principal holds and of every new key, once per statement, but not of last_used_at', async () => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    const payloads: (string | undefined)[] = [];
    client.on('notification', (n) => payloads.push(n.payload));
    await client.query(`LISTEN ${API_KEY_CHANGES_CHANNEL}`);
    try {
      const [a, b] = [await newKey(), await newKey()];
      await client.query('SELECT 1');
      expect(payloads.splice(0)).toEqual(['api_keys created', 'api_keys created']);
      await db.ds.query('UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1)', [[a.id, b.id]]);
      await db.ds.query('UPDATE api_keys SET revoked_at = now() WHERE id = ANY($1)', [[a.id, b.id]]);
      await db.ds.query(`UPDATE organizations SET rate_limit_per_second = 5 WHERE id = $1`, [a.orgId]);
      await db.ds.query('DELETE FROM projects WHERE id = $1', [b.projectId]);
      await client.query('SELECT 1');
      expect(payloads.slice(0, 2)).toEqual(['api_keys', 'organizations']);
      // The project's statement, and the cascade's delete of its keys.
      expect(payloads.slice(2).sort()).toEqual(['api_keys', 'projects']);
    } finally {
      await client.end();
    }
  });

  it('answers with the new plan on the first look-up after a plan change commits', async () => {
    const { lookup } = await listening();
    const key = await newKey();
    await lookup.find(key.secret);
    await db.ds.query(`UPDATE organizations SET plan = 'pro' WHERE id = $1`, [key.orgId]);
    expect(await lookup.find(key.secret)).toMatchObject({ plan: 'pro' });
  });

  it('refuses the keys of a project on the first look-up after its deletion commits', async () => {
    const { lookup } = await listening();
    const key = await newKey();
    await lookup.find(key.secret);
    await db.ds.query('DELETE FROM projects WHERE id = $1', [key.projectId]);
    expect(await lookup.find(key.secret)).toBeNull();
  });

  it('asks Postgres for every look-up while its listener is disconnected', async () => {
    const { cache, lookup, state, dropConnection } = await listening(60_000);
    const key = await newKey();
    await lookup.find(key.secret);
    await dropConnection();
    await until(() => state.lost === 1);

    expect(cache.get(key.hash)).toBeUndefined();
    expect(await lookup.find(key.secret)).toMatchObject({ apiKeyId: key.id });
    expect(cache.get(key.hash)).toBeUndefined();
    await silently('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    expect(await lookup.find(key.secret)).toBeNull();
  });

  it('caches again once its listener has reconnected', async () => {
    const { cache, lookup, state, dropConnection } = await listening(50);
    const key = await newKey();
    await dropConnection();
    await until(() => state.lost === 1 && state.listening === 2);
    await lookup.find(key.secret);
    expect(cache.get(key.hash)).toMatchObject({ apiKeyId: key.id });
  });
});
