import 'reflect-metadata';
import { LOGIN_THROTTLE, loginAccountKey } from '@app/domain';
import { useTestDatabase } from '../testing/test-database';
import { LoginFailuresStore } from './login-failures-store';

describe(LoginFailuresStore.name, () => {
  const db = useTestDatabase();
  let store: LoginFailuresStore;

  beforeAll(async () => {
    store = new LoginFailuresStore(db.ds);
  });

  it('counts guesses sent all at once one by one: only the free failures are admitted', async () => {
    const key = loginAccountKey('burst@spanlog.test');
    const now = Date.now();
    const decisions = await Promise.all(Array.from({ length: 20 }, () => store.admit(key, now)));
    expect(decisions.filter((d) => d.admitted)).toHaveLength(LOGIN_THROTTLE.freeFailures);
    for (const d of decisions.filter((d) => !d.admitted)) expect(d).toEqual({ admitted: false, retryAfterMs: LOGIN_THROTTLE.firstLockMs });
  });

  it('admits again once the lock is over, and from zero after a success', async () => {
    const key = loginAccountKey('ada@spanlog.test');
    const t0 = Date.now();
    for (let i = 0; i < LOGIN_THROTTLE.freeFailures; i++) expect((await store.admit(key, t0)).admitted).toBe(true);
    expect(await store.admit(key, t0 + 10)).toEqual({ admitted: false, retryAfterMs: LOGIN_THROTTLE.firstLockMs - 10 });
    expect(await store.admit(key, t0 + LOGIN_THROTTLE.firstLockMs)).toMatchObject({
      admitted: true,
      next: { failures: LOGIN_THROTTLE.freeFailures + 1 },
    });
    await store.clear(key);
    expect(await store.admit(key, t0 + LOGIN_THROTTLE.firstLockMs + 1)).toMatchObject({
      admitted: true,
      next: { failures: 1, lockedUntilMs: null },
    });
  });

  it('forgets accounts whose last failure left the window', async () => {
    const now = Date.now();
    await store.admit(loginAccountKey('old@spanlog.test'), now - LOGIN_THROTTLE.windowMs - 1_000);
    await store.admit(loginAccountKey('recent@spanlog.test'), now);
    expect(await store.forgetBefore(now, LOGIN_THROTTLE.windowMs)).toBe(1);
    expect(await db.ds.query('SELECT 1 FROM login_failures WHERE account_key = $1', [loginAccountKey('recent@spanlog.test')])).toHaveLength(
      1,
    );
  });
});
