import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import * as argon2 from 'argon2';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DomainError } from '@app/domain';
import { type IssuedSession, SessionStore, hashPassword } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';

/** SPEC 2.5's session, exactly. */
export interface SessionResponse {
  access_token: string;
  refresh_token: string;
  expires_at: number;
  user: { id: string; email: string };
}

export interface AccessClaims {
  sub: string;
  sid: string;
  typ: 'access';
}

const INVALID_CREDENTIALS = 'invalid email or password';

@Injectable()
export class AuthService {
  /** Verified against when the e-mail is unknown, so both failures take the same time. */
  private readonly decoyHash: Promise<string>;

  constructor(
    private readonly db: DataSource,
    private readonly sessions: SessionStore,
    private readonly jwt: JwtService,
    private readonly audit: AuditPublisher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.decoyHash = hashPassword('spanlog-decoy-password');
  }

  async login(email: string, password: string, ip: string | null): Promise<SessionResponse> {
    const rows: { id: string; email: string; password_hash: string }[] = await this.db.query(
      'SELECT id, email, password_hash FROM users WHERE lower(email) = lower($1)',
      [email],
    );
    const user = rows[0];
    const valid = await argon2.verify(user?.password_hash ?? (await this.decoyHash), password).catch(() => false);
    if (!user || !valid) {
      await this.audit.record({ orgId: null, actorUserId: user?.id ?? null, action: 'user.login_failed', target: email.slice(0, 320), details: {}, ip });
      throw new DomainError('UNAUTHORIZED', INVALID_CREDENTIALS);
    }
    const session = await this.sessions.open(user.id, this.config.jwtRefreshTtlSeconds);
    await this.audit.record({ orgId: null, actorUserId: user.id, action: 'user.login', target: session.sessionId, details: {}, ip });
    return this.respond(session, user.email);
  }

  async refresh(refreshToken: string, ip: string | null): Promise<SessionResponse> {
    const outcome = await this.sessions.rotate(refreshToken);
    switch (outcome.kind) {
      case 'invalid':
        throw new DomainError('UNAUTHORIZED', 'refresh token is invalid or expired');
      case 'reused':
        await this.audit.record({ orgId: null, actorUserId: outcome.userId, action: 'session.refresh_reuse', target: outcome.sessionId, details: {}, ip });
        throw new DomainError('UNAUTHORIZED', 'refresh token was already used; the session has been revoked');
      case 'rotated': {
        const [{ email }] = await this.db.query('SELECT email FROM users WHERE id = $1', [outcome.session.userId]);
        return this.respond(outcome.session, email as string);
      }
    }
  }

  async logout(claims: AccessClaims, ip: string | null): Promise<void> {
    await this.sessions.revoke(claims.sid, 'logout');
    await this.audit.record({ orgId: null, actorUserId: claims.sub, action: 'user.logout', target: claims.sid, details: {}, ip });
  }

  /** The claims of a live session's access token, or 401. */
  async verifyAccessToken(token: string): Promise<AccessClaims> {
    let claims: AccessClaims;
    try {
      claims = await this.jwt.verifyAsync<AccessClaims>(token);
    } catch {
      throw new DomainError('UNAUTHORIZED', 'access token is invalid or expired');
    }
    if (claims.typ !== 'access' || typeof claims.sid !== 'string' || !(await this.sessions.isLive(claims.sid))) {
      throw new DomainError('UNAUTHORIZED', 'session has ended; log in again');
    }
    return claims;
  }

  private async respond(session: IssuedSession, email: string): Promise<SessionResponse> {
    const expiresAt = Math.floor(Date.now() / 1000) + this.config.jwtAccessTtlSeconds;
    const claims: AccessClaims = { sub: session.userId, sid: session.sessionId, typ: 'access' };
    const accessToken = await this.jwt.signAsync(claims, { expiresIn: this.config.jwtAccessTtlSeconds });
    return { access_token: accessToken, refresh_token: session.refreshToken, expires_at: expiresAt, user: { id: session.userId, email } };
  }
}
