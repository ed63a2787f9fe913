import * as argon2 from 'argon2';

/** OWASP's argon2id recommendation: 19 MiB, 2 iterations, 1 lane. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, ARGON2_OPTIONS);

/**
 * Checks a login password. An unknown user (no hash) is verified against a decoy hash of the
 * same cost, so "no such e-mail" and "wrong password" do the same argon2 work and cannot be
 * told apart by timing.
 */
export class PasswordVerifier {
  private readonly decoyHash = hashPassword('spanlog-decoy-password');

  async verify(hash: string | null, password: string): Promise<boolean> {
    const ok = await argon2.verify(hash ?? (await this.decoyHash), password).catch(() => false);
    return hash !== null && ok;
  }
}
