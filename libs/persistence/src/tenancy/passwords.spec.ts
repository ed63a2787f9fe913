import * as argon2 from 'argon2';
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
});
