import { type CanActivate, type ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@app/domain';
import { ApiKeyLookup, type ApiKeyPrincipal } from '@app/persistence';
import { FailedAuthLimiter } from './failed-auth-limiter';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: ApiKeyPrincipal;
  }
}

export function bearerToken(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/** Where Langfuse's SDKs send their requests, with Langfuse's credentials. */
export const LANGFUSE_ROUTES_PREFIX = '/api/public/';

/**
 * Langfuse's SDKs authenticate with `Basic base64(publicKey:secretKey)`; a user switching to
 * Spanlog keeps any public key and puts the Spanlog API key as the secret.
 */
export function langfuseBasicKey(req: FastifyRequest): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const secret = colon < 0 ? '' : decoded.slice(colon + 1);
  return secret === '' ? null : secret;
}

/** The API key a request sends: a bearer token, or on Langfuse's routes Langfuse's Basic credentials too. */
export function apiKeyOf(req: FastifyRequest): string | null {
  return bearerToken(req) ?? (req.url?.startsWith(LANGFUSE_ROUTES_PREFIX) ? langfuseBasicKey(req) : null);
}

/**
 * Project API keys (SPEC 5): missing, unknown or revoked → 401; a session token is not a key.
 * A client IP that keeps sending unknown keys (FailedAuthLimiter) is refused with 429 for
 * keys that do not exist, told apart without a query (`mayExist`), while its valid keys,
 * old or just created, are looked up as ever: behind a proxy every client shares one
 * address, and one client's guesses must not lock the others out.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeyLookup,
    private readonly failures: FailedAuthLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const token = apiKeyOf(req);
    if (!token) throw new DomainError('UNAUTHORIZED', 'missing API key: send Authorization: Bearer <API_KEY>');
    const blockedForMs = this.failures.blockedForMs(req.ip);
    if (blockedForMs && !(await this.keys.mayExist(token))) {
      const seconds = Math.ceil(blockedForMs / 1_000);
      throw new DomainError(
        'RATE_LIMIT_EXCEEDED',
        `too many requests with invalid API keys from this address; retry after ${seconds} second${seconds === 1 ? '' : 's'}`,
        { 'Retry-After': String(seconds) },
      );
    }
    const principal = await this.keys.find(token);
    if (!principal) {
      this.failures.recordFailure(req.ip);
      throw new DomainError('UNAUTHORIZED', 'invalid or revoked API key');
    }
    req.principal = principal;
    return true;
  }
}

export const Principal = createParamDecorator((_: unknown, ctx: ExecutionContext): ApiKeyPrincipal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('Principal used on a route without ApiKeyGuard');
  return principal;
});
