import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed logins per account (libs/domain/src/login-throttle.ts), in Postgres so that every API
 * replica counts the same failures. Keyed by a hash of the e-mail, known or not.
 */
export class LoginFailures1764700000000 implements MigrationInterface {
  name = 'LoginFailures1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE login_failures (
        account_key text PRIMARY KEY,
        failures integer NOT NULL CHECK (failures >= 0),
        last_failure_at timestamptz NOT NULL,
        locked_until timestamptz
      );
      CREATE INDEX login_failures_last_idx ON login_failures (last_failure_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE login_failures');
  }
}
