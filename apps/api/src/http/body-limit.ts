import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@app/domain';

/**
 * 413 for a body over an endpoint's own limit, below the server's ceiling (MAX_BODY_BYTES)
 * that Fastify enforces for every route; `raw` is the body after any Content-Encoding.
 */
export function assertBodyWithin(raw: Buffer | undefined, limit: number): void {
  if (raw && raw.byteLength > limit)
    throw new DomainError('PAYLOAD_TOO_LARGE', `body is ${raw.byteLength} bytes; at most ${limit} are allowed`);
}

/**
 * The same check for routes whose body a Nest DTO pipe validates: a guard runs before the
 * pipes, so an oversized body is a 413 rather than a 400 about one of its fields.
 */
export class BodyWithinGuard implements CanActivate {
  constructor(private readonly limit: number) {}

  canActivate(context: ExecutionContext): boolean {
    assertBodyWithin(context.switchToHttp().getRequest<FastifyRequest>().rawBody, this.limit);
    return true;
  }
}
