import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DomainError, isUuidShaped, looksLikeApiKey } from '@app/domain';
import { type IssuedSession, PasswordVerifier, SessionStore, TenancyRepository } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';
import { LoginThrottle } from './login-throttle';

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

/**
 * Whether verified claims are an access token as `respond` issues them. The signature says
 * only who signed: a token signed with the secret but shaped otherwise (a bug, a leaked
 * secret) is refused rather than trusted. Without `exp` it would never expire (the verifier
 * checks `exp` only when present), and a `sid` or `sub` that is not a UUID must not reach a
 * query as one.
 */
const isAccessClaims = (claims: Record<string, unknown>): claims is Record<string, unknown> & AccessClaims =>
  claims.typ === 'access' && typeof claims.exp === 'number' && isUuidShaped(claims.sub) && isUuidShaped(claims.sid);

/** One message for an unknown e-mail and a wrong password, so neither reveals which e-mails exist. */
const INVALID_CREDENTIALS = 'invalid email or password';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: TenancyRepository,
    private readonly sessions: SessionStore,
    private readonly passwords: PasswordVerifier,
    private readonly jwt: JwtService,
    private readonly audit: AuditPublisher,
    private readonly throttle: LoginThrottle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async login(email: string, password: string, ip: string | null): Promise<SessionResponse> {
    await this.throttle.admit(email);
    const user = await this.users.credentials(email);
    const valid = await this.passwords.verify(user?.passwordHash ?? null, password);
    if (!user || !valid) {
      await this.audit.record({ orgId: null, actorUserId: user?.id ?? null, action: 'user.login_failed', target: email, details: {}, ip });
      throw new DomainError('UNAUTHORIZED', INVALID_CREDENTIALS);
    }
    await this.throttle.succeeded(email);
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
        await this.audit.record({
          orgId: null,
          actorUserId: outcome.userId,
          action: 'session.refresh_reuse',
          target: outcome.sessionId,
          details: {},
          ip,
        });
        throw new DomainError('UNAUTHORIZED', 'refresh token was already used; the session has been revoked');
      case 'rotated': {
        const user = await this.users.user(outcome.session.userId);
        if (!user) throw new DomainError('UNAUTHORIZED', 'refresh token is invalid or expired');
        return this.respond(outcome.session, user.email);
      }
    }
  }

  async logout(claims: AccessClaims, ip: string | null): Promise<void> {
    await this.sessions.revoke(claims.sid, 'logout');
    await this.audit.record({ orgId: null, actorUserId: claims.sub, action: 'user.logout', target: claims.sid, details: {}, ip });
  }

  /** The claims of a live session's access token, or 401: a logged-out or revoked session's tokens die with it. */
  async verifyAccessToken(token: string): Promise<AccessClaims> {
    if (looksLikeApiKey(token)) {
      throw new DomainError('UNAUTHORIZED', 'an API key is not a session token: log in and send the access token');
    }
    let claims: Record<string, unknown>;
    try {
      claims = await this.jwt.verifyAsync<Record<string, unknown>>(token);
    } catch {
      throw new DomainError('UNAUTHORIZED', 'access token is invalid or expired');
    }
    if (!isAccessClaims(claims)) throw new DomainError('UNAUTHORIZED', 'access token is invalid or expired');
    // sid and sub together: a token signed with a leaked secret cannot borrow another user's live session.
    if (!(await this.sessions.isLiveFor(claims.sid, claims.sub))) throw new DomainError('UNAUTHORIZED', 'session has ended; log in again');
    return claims;
  }

  private async respond(session: IssuedSession, email: string): Promise<SessionResponse> {
    // `exp` set here, not through expiresIn, so the token and `expires_at` name the same second;
    // `jti` makes every issued token distinct, even two within one second of the same session.
    const expiresAt = Math.floor(Date.now() / 1000) + this.config.jwtAccessTtlSeconds;
    const claims: AccessClaims = { sub: session.userId, sid: session.sessionId, typ: 'access' };
    const accessToken = await this.jwt.signAsync({ ...claims, jti: randomUUID(), exp: expiresAt });
    return { access_token: accessToken, refresh_token: session.refreshToken, expires_at: expiresAt, user: { id: session.userId, email } };
  }
}
