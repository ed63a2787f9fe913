import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';

export const REFRESH_TOKEN_PREFIX = 'slr_';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const newRefreshToken = () => `${REFRESH_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;

export interface IssuedSession {
  sessionId: string;
  userId: string;
  refreshToken: string;
}

export type RefreshOutcome =
  | { kind: 'rotated'; session: IssuedSession }
  | { kind: 'invalid' }
  /** A refresh token used a second time: the session is revoked (reuse detection). */
  | { kind: 'reused'; sessionId: string; userId: string };

/**
 * Sessions and their refresh tokens. Only hashes are stored. Each refresh marks its token
 * used and issues the next one in the same session, so a stolen, already-used token
 * revokes the session for thief and owner alike.
 */
export class SessionStore {
  constructor(private readonly db: DataSource) {}

  async open(userId: string, refreshTtlSeconds: number): Promise<IssuedSession> {
    return this.db.transaction(async (m) => {
      const [{ id }] = await m.query(
        `INSERT INTO user_sessions (user_id, expires_at) VALUES ($1, now() + make_interval(secs => $2)) RETURNING id`,
        [userId, refreshTtlSeconds],
      );
      const refreshToken = newRefreshToken();
      await m.query('INSERT INTO refresh_tokens (token_hash, session_id) VALUES ($1, $2)', [hashToken(refreshToken), id]);
      return { sessionId: id as string, userId, refreshToken };
    });
  }

  async rotate(refreshToken: string): Promise<RefreshOutcome> {
    return this.db.transaction(async (m) => {
      const rows: { session_id: string; used_at: Date | null; user_id: string; live: boolean }[] = await m.query(
        `SELECT t.session_id, t.used_at, s.user_id, (s.revoked_at IS NULL AND s.expires_at > now()) AS live
           FROM refresh_tokens t JOIN user_sessions s ON s.id = t.session_id
          WHERE t.token_hash = $1
          FOR UPDATE OF t, s`,
        [hashToken(refreshToken)],
      );
      const row = rows[0];
      if (!row || !row.live) return { kind: 'invalid' };
      if (row.used_at) {
        await m.query(`UPDATE user_sessions SET revoked_at = now(), revoked_reason = 'refresh_reuse' WHERE id = $1`, [row.session_id]);
        return { kind: 'reused', sessionId: row.session_id, userId: row.user_id };
      }
      await m.query('UPDATE refresh_tokens SET used_at = now() WHERE token_hash = $1', [hashToken(refreshToken)]);
      const next = newRefreshToken();
      await m.query('INSERT INTO refresh_tokens (token_hash, session_id) VALUES ($1, $2)', [hashToken(next), row.session_id]);
      return { kind: 'rotated', session: { sessionId: row.session_id, userId: row.user_id, refreshToken: next } };
    });
  }

  /** Whether the session is live and is this user's: a token naming someone else's session is no session. */
  async isLiveFor(sessionId: string, userId: string): Promise<boolean> {
    const rows = await this.db.query(
      'SELECT 1 FROM user_sessions WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > now()',
      [sessionId, userId],
    );
    return rows.length > 0;
  }

  async revoke(sessionId: string, reason: 'logout' | 'admin'): Promise<void> {
    await this.db.query('UPDATE user_sessions SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL', [
      sessionId,
      reason,
    ]);
  }
}
