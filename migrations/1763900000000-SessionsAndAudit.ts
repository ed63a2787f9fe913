import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * User sessions with rotating refresh tokens (SPEC 5.4: a refresh token works once; a
 * second use revokes the whole session), and the audit log read model.
 */
export class SessionsAndAudit1763900000000 implements MigrationInterface {
  name = 'SessionsAndAudit1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE user_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        revoked_reason text CHECK (revoked_reason IN ('logout', 'refresh_reuse', 'admin'))
      );
      CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);
      CREATE TABLE refresh_tokens (
        token_hash text PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES user_sessions (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        used_at timestamptz
      );
      CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);
      CREATE TABLE audit_log (
        id uuid PRIMARY KEY,
        org_id uuid,
        actor_user_id uuid,
        action text NOT NULL,
        target text,
        details jsonb NOT NULL DEFAULT '{}',
        ip text,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX audit_log_org_idx ON audit_log (org_id, created_at DESC, id DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE audit_log, refresh_tokens, user_sessions');
  }
}
