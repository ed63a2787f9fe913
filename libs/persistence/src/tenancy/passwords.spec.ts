import * as argon2 from 'argon2';
import { DomainError } from '@app/domain';
import { ARGON2_OPTIONS, PasswordVerifier, hashPassword } from './passwords';

// The real argon2, observed: which hash each login path verifies against.
jest.mock('argon2', () => {
  const actual = jest.requireActual<typeof import('argon2')>('argon2');
  return { ...actual, verify: jest.fn(actual.verify) };
});
const verifySpy = argon2.verify as jest.MockedFunction<typeof argon2.verify>;

describe(PasswordVerifier.name, () => {
  const verifier = new PasswordVerifier();
  let stored: string;

  beforeAll(async () => {
    stored = await hashPassword('correct horse');
  });

  beforeEach(() => verifySpy.mockClear());

  it('accepts the right password and refuses a wrong one', async () => {
    await expect(verifier.verify(stored, 'correct horse')).resolves.toBe(true);
    await expect(verifier.verify(stored, 'wrong')).resolves.toBe(false);
  });

  it('refuses an unknown user after the same argon2 work as a wrong password', async () => {
    await expect(verifier.verify(null, 'correct horse')).resolves.toBe(false);
    await expect(verifier.verify(null, 'spanlog-decoy-password')).resolves.toBe(false);
    await verifier.verify(stored, 'wrong');
    expect(verifySpy).toHaveBeenCalledTimes(3);
    const [decoy] = verifySpy.mock.calls[0];
    expect(decoy).not.toBe(stored);
    // Same algorithm and cost parameters: needsRehash is false for both against the one set of options.
    for (const hash of [decoy, stored]) expect(argon2.needsRehash(hash, ARGON2_OPTIONS)).toBe(false);
    expect(decoy.split('$').slice(0, 4)).toEqual(stored.split('$').slice(0, 4));
  });

  it('checks one password at a time with a bounded queue, and refuses with 503 at once beyond it', async () => {
    let active = 0;
    let mostActive = 0;
    const pending: (() => void)[] = [];
    const check = () =>
      new Promise<boolean>((resolve) => {
        mostActive = Math.max(mostActive, ++active);
        pending.push(() => {
          active--;
          resolve(true);
        });
      });
    const bounded = new PasswordVerifier({ concurrent: 1, queued: 2 }, check);
    const outcomes = Array.from({ length: 5 }, () =>
      bounded.verify(stored, 'whatever').then(
        (ok) => ({ ok }),
        (err: unknown) => ({ err }),
      ),
    );
    // Let the first check start and the refusals settle.
    await new Promise((resolve) => setImmediate(resolve));
    while (pending.length) {
      pending.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const settled = await Promise.all(outcomes);
    expect(settled.filter((o) => 'ok' in o)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    const refused = settled.filter((o): o is { err: DomainError } => 'err' in o).map((o) => o.err);
    expect(refused).toHaveLength(2);
    for (const err of refused) {
      expect(err).toBeInstanceOf(DomainError);
      expect({ code: err.code, headers: err.headers }).toEqual({ code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } });
    }
    expect(mostActive).toBe(1);
  });
});
