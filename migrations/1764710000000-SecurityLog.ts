import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's own security events (logins, failed logins, logouts, refresh reuse: the audit rows
 * of no organization) are read by that user alone (`user.securityLog`), newest first.
 */
export class SecurityLog1764710000000 implements MigrationInterface {
  name = 'SecurityLog1764710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX audit_log_user_idx ON audit_log (actor_user_id, created_at DESC, id DESC) WHERE org_id IS NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX audit_log_user_idx');
  }
}
