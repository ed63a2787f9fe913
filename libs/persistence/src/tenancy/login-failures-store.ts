import type { DataSource } from 'typeorm';
import { type LoginAdmission, type LoginFailures, admitLoginAttempt } from '@app/domain';
import { affectedRows } from '../query-result';

/** Failed logins per account key, shared by every API replica; the rule is `admitLoginAttempt`'s. */
export class LoginFailuresStore {
  constructor(private readonly db: DataSource) {}

  /**
   * Admits or refuses one attempt and records an admitted one as a failure, one attempt of an
   * account at a time (the row is locked), so concurrent guesses are all counted.
   */
  async admit(accountKey: string, nowMs: number): Promise<LoginAdmission> {
    return this.db.transaction(async (m) => {
      // A row to lock even on the account's first attempt; failures 0 reads as no history.
      await m.query(
        `INSERT INTO login_failures (account_key, failures, last_failure_at) VALUES ($1, 0, to_timestamp(0)) ON CONFLICT DO NOTHING`,
        [accountKey],
      );
      const [row]: LoginFailures[] = await m.query(
        `SELECT failures, (extract(epoch FROM last_failure_at) * 1000)::float8 AS "lastFailureAtMs", (extract(epoch FROM locked_until) * 1000)::float8 AS "lockedUntilMs"
           FROM login_failures WHERE account_key = $1 FOR UPDATE`,
        [accountKey],
      );
      const decision = admitLoginAttempt(row.failures > 0 ? row : null, nowMs);
      if (decision.admitted) {
        const { failures, lastFailureAtMs, lockedUntilMs } = decision.next;
        await m.query(
          `UPDATE login_failures SET failures = $2, last_failure_at = to_timestamp($3::float8 / 1000), locked_until = to_timestamp($4::float8 / 1000) WHERE account_key = $1`,
          [accountKey, failures, lastFailureAtMs, lockedUntilMs],
        );
      }
      return decision;
    });
  }

  /** A successful login clears the account. */
  async clear(accountKey: string): Promise<void> {
    await this.db.query('DELETE FROM login_failures WHERE account_key = $1', [accountKey]);
  }

  /** Forgets accounts whose last failure is older than `windowMs`: they count from zero anyway. */
  async forgetBefore(nowMs: number, windowMs: number): Promise<number> {
    const rows = await this.db.query('DELETE FROM login_failures WHERE last_failure_at < to_timestamp($1::float8 / 1000) RETURNING 1', [
      nowMs - windowMs,
    ]);
    return affectedRows(rows);
  }
}
