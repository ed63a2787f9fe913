import { type CanActivate, type ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@app/domain';
import { bearerToken } from '../auth/api-key.guard';
import { type AccessClaims, AuthService } from './auth.service';

declare module 'fastify' {
  interface FastifyRequest {
    session?: AccessClaims;
  }
}

/** Session tokens (JWT) only: an API key is not a session (SPEC 5.6). */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(private readonly auth: AuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const token = bearerToken(req);
    if (!token) throw new DomainError('UNAUTHORIZED', 'missing access token: send Authorization: Bearer <ACCESS_TOKEN>');
    req.session = await this.auth.verifyAccessToken(token);
    return true;
  }
}

export const Session = createParamDecorator((_: unknown, ctx: ExecutionContext): AccessClaims => {
  const session = ctx.switchToHttp().getRequest<FastifyRequest>().session;
  if (!session) throw new Error('Session used on a route without SessionGuard');
  return session;
});
