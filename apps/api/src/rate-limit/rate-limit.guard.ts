import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerRequest } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AUTH_RATE_PER_SECOND_PER_IP, DomainError, rateLimitOf } from '@app/domain';
import { usesDataEnvelope } from '../http/error-response';
import type { SlidingWindowRecord } from './sliding-window.storage';

const RETRY_MESSAGE = 'Rate limit exceeded, retry after 1 second';

/** Requests per second for this request: the API key's plan, or the per-IP limit of the auth endpoints. */
export function requestLimit(context: ExecutionContext): number {
  const { principal } = context.switchToHttp().getRequest<FastifyRequest>();
  return principal ? rateLimitOf(principal.plan, principal.rateLimitPerSecond) : AUTH_RATE_PER_SECOND_PER_IP;
}

/**
 * SPEC 8.2 with CONTRACT "Rate limits": one bucket per API key across every limited route
 * (per client IP on the auth endpoints), `RateLimit-*` headers on every answer with the
 * reset as a Unix time, and 429 with `Retry-After: 1`. Runs after ApiKeyGuard, whose
 * principal it counts against.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async getTracker(req: FastifyRequest): Promise<string> {
    return req.principal ? `key:${req.principal.apiKeyId}` : `ip:${req.ip}`;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override async handleRequest({ context, limit, ttl, throttler, blockDuration }: ThrottlerRequest): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const key = this.generateKey(context, await this.getTracker(req), throttler.name ?? 'default');
    const record = (await this.storageService.increment(
      key,
      ttl,
      limit,
      blockDuration,
      throttler.name ?? 'default',
    )) as SlidingWindowRecord;
    void reply.headers({
      'RateLimit-Limit': limit,
      'RateLimit-Remaining': Math.max(0, limit - record.totalHits),
      'RateLimit-Reset': Math.ceil(record.resetAtMs / 1_000),
    });
    if (record.isBlocked) {
      throw new DomainError(usesDataEnvelope(req.url) ? 'RATE_LIMITED' : 'RATE_LIMIT_EXCEEDED', RETRY_MESSAGE, { 'Retry-After': '1' });
    }
    return true;
  }
}
