import * as argon2 from 'argon2';
import pLimit, { type LimitFunction } from 'p-limit';
import { PASSWORD_HASHING, serviceUnavailable } from '@app/domain';

/** OWASP's argon2id recommendation: 19 MiB, 2 iterations, 1 lane. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, ARGON2_OPTIONS);

type Check = (hash: string, password: string) => Promise<boolean>;

/**
 * Checks a login password. An unknown user (no hash) is verified against a decoy hash of the
 * same cost, so "no such e-mail" and "wrong password" do the same argon2 work and cannot be
 * told apart by timing. Checks run at most `concurrent` at a time with at most `queued`
 * waiting (PASSWORD_HASHING); a check beyond that is refused with 503 rather than queued, so
 * a login flood neither takes every core nor piles up.
 */
export class PasswordVerifier {
  private readonly decoyHash = hashPassword('spanlog-decoy-password');
  private readonly limit: LimitFunction;

  constructor(
    private readonly bounds: { concurrent: number; queued: number } = PASSWORD_HASHING,
    private readonly check: Check = (hash, password) => argon2.verify(hash, password),
  ) {
    this.limit = pLimit(bounds.concurrent);
  }

  async verify(hash: string | null, password: string): Promise<boolean> {
    if (this.limit.pendingCount >= this.bounds.queued)
      throw serviceUnavailable('too many logins are being checked at once; retry in a second');
    const ok = await this.limit(async () => this.check(hash ?? (await this.decoyHash), password).catch(() => false));
    return hash !== null && ok;
  }
}
