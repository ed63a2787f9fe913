import fc from 'fast-check';
import { LOGIN_THROTTLE } from './limits';
import { type LoginFailures, admitLoginAttempt, loginAccountKey } from './login-throttle';

/** Every attempt of a sequence at the given times, each admitted one failing; what each was told. */
function failAll(times: number[]): { admitted: boolean; retryAfterMs?: number; lockedUntilMs?: number | null }[] {
  let state: LoginFailures | null = null;
  return times.map((now) => {
    const decision = admitLoginAttempt(state, now);
    if (!decision.admitted) return { admitted: false, retryAfterMs: decision.retryAfterMs };
    state = decision.next;
    return { admitted: true, lockedUntilMs: state.lockedUntilMs };
  });
}

describe(admitLoginAttempt.name, () => {
  it('admits the free failures, then locks after each further one for twice as long as before', () => {
    const { freeFailures, firstLockMs } = LOGIN_THROTTLE;
    let now = 0;
    let state: LoginFailures | null = null;
    const locks: (number | null)[] = [];
    for (let i = 0; i < freeFailures + 3; i++) {
      const decision = admitLoginAttempt(state, now);
      if (!decision.admitted) throw new Error(`attempt ${i + 1} refused`);
      state = decision.next;
      locks.push(state.lockedUntilMs === null ? null : state.lockedUntilMs - now);
      now = state.lockedUntilMs ?? now + 1;
    }
    expect(locks).toEqual([...Array(freeFailures - 1).fill(null), firstLockMs, 2 * firstLockMs, 4 * firstLockMs, 8 * firstLockMs]);
  });

  it('refuses attempts while locked, with the time left, and counts none of them', () => {
    const results = failAll([0, 1, 2, 3, 4, 5, 6, 500]);
    expect(results.slice(0, 5).every((r) => r.admitted)).toBe(true);
    expect(results[5]).toEqual({ admitted: false, retryAfterMs: LOGIN_THROTTLE.firstLockMs - 1 });
    expect(results[7]).toEqual({ admitted: false, retryAfterMs: LOGIN_THROTTLE.firstLockMs - 496 });
    // Once the lock is over, the next failure locks for the next step only: refused attempts did not count.
    const after = failAll([0, 1, 2, 3, 4, 5, 6, 500, 1_004]);
    expect(after[8]).toEqual({ admitted: true, lockedUntilMs: 1_004 + 2 * LOGIN_THROTTLE.firstLockMs });
  });

  it('forgets failures older than the window', () => {
    const late = LOGIN_THROTTLE.windowMs + 10;
    const results = failAll([0, 1, 2, 3, late, late + 1, late + 2, late + 3]);
    expect(results.every((r) => r.admitted && r.lockedUntilMs === null)).toBe(true);
  });

  it('never locks an account for longer than the cap, however long the guessing goes on', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 600_000 }), { minLength: 1, maxLength: 200 }), (gaps) => {
        let now = 0;
        const times = gaps.map((gap) => (now += gap));
        for (const [i, r] of failAll(times).entries()) {
          if (r.admitted && r.lockedUntilMs != null) expect(r.lockedUntilMs - times[i]).toBeLessThanOrEqual(LOGIN_THROTTLE.maxLockMs);
          if (!r.admitted) expect(r.retryAfterMs).toBeLessThanOrEqual(LOGIN_THROTTLE.maxLockMs);
        }
      }),
    );
  });
});

describe('loginAccountKey', () => {
  it('is the same for an e-mail in any case, and does not contain it', () => {
    expect(loginAccountKey('Ada@Example.com')).toBe(loginAccountKey('ada@example.com'));
    expect(loginAccountKey('ada@example.com')).not.toBe(loginAccountKey('bob@example.com'));
    expect(loginAccountKey('ada@example.com')).toMatch(/^[0-9a-f]{64}$/);
  });
});
