import type { ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DomainError, FAILED_KEY_AUTHS_PER_SECOND_PER_IP } from '@app/domain';
import type { ApiKeyLookup, ApiKeyPrincipal } from '@app/persistence';
import { ApiKeyGuard } from './api-key.guard';
import { FailedAuthLimiter } from './failed-auth-limiter';

const GOOD_KEY = 'sl_good';
const principal: ApiKeyPrincipal = { apiKeyId: 'key-1', projectId: 'project-1', orgId: 'org-1', plan: 'free', rateLimitPerSecond: null };

/** A guard over a key store that knows one key, counting what reaches "Postgres"; the clock is the test's. */
function guardAt() {
  const clock = { now: 1_000_000 };
  const lookups = { database: 0, known: 0 };
  const keys = {
    find: async (secret: string) => {
      lookups.database++;
      return secret === GOOD_KEY ? principal : null;
    },
    mayExist: async (secret: string) => {
      lookups.known++;
      return secret === GOOD_KEY;
    },
  } as unknown as ApiKeyLookup;
  const guard = new ApiKeyGuard(keys, new FailedAuthLimiter(() => clock.now));
  const attempt = (key: string, ip = '198.51.100.7') => {
    const req = { headers: { authorization: `Bearer ${key}` }, ip } as unknown as FastifyRequest;
    const context = { switchToHttp: () => ({ getRequest: () => req }) } as unknown as ExecutionContext;
    return guard.canActivate(context).then(
      () => 'ok',
      (err: DomainError) => ({ code: err.code, retryAfter: err.headers['Retry-After'] }),
    );
  };
  return { attempt, clock, lookups };
}

describe(ApiKeyGuard.name, () => {
  it('refuses an IP with 429 once it sent too many unknown keys in a second, without looking them up', async () => {
    const { attempt, clock, lookups } = guardAt();
    for (let i = 0; i < FAILED_KEY_AUTHS_PER_SECOND_PER_IP; i++)
      expect(await attempt(`sl_unknown_${i}`)).toEqual({ code: 'UNAUTHORIZED', retryAfter: undefined });
    expect(lookups).toEqual({ database: FAILED_KEY_AUTHS_PER_SECOND_PER_IP, known: 0 });
    clock.now += 400;
    expect(await attempt('sl_unknown_more')).toEqual({ code: 'RATE_LIMIT_EXCEEDED', retryAfter: '1' });
    expect(lookups).toEqual({ database: FAILED_KEY_AUTHS_PER_SECOND_PER_IP, known: 1 });
    // Other addresses are not held back, and this one is let in again once its failures leave the window.
    expect(await attempt('sl_unknown_elsewhere', '203.0.113.9')).toEqual({ code: 'UNAUTHORIZED', retryAfter: undefined });
    clock.now += 600;
    expect(await attempt('sl_unknown_later')).toEqual({ code: 'UNAUTHORIZED', retryAfter: undefined });
  });

  it('looks up a valid key from a refused address, so no flood of guesses locks its clients out', async () => {
    const { attempt, lookups } = guardAt();
    for (let i = 0; i < FAILED_KEY_AUTHS_PER_SECOND_PER_IP; i++) await attempt(`sl_unknown_${i}`);
    expect(await attempt('sl_unknown_more')).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(await attempt(GOOD_KEY)).toBe('ok');
    expect(lookups.database).toBe(FAILED_KEY_AUTHS_PER_SECOND_PER_IP + 1);
  });

  describe('Langfuse Basic credentials', () => {
    const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
    const attemptWith = async (url: string, authorization: string) => {
      const keys = {
        find: async (secret: string) => (secret === GOOD_KEY ? principal : null),
        mayExist: async () => true,
      } as unknown as ApiKeyLookup;
      const guard = new ApiKeyGuard(keys, new FailedAuthLimiter(() => 0));
      const req = { headers: { authorization }, ip: '198.51.100.7', url } as unknown as FastifyRequest;
      const context = { switchToHttp: () => ({ getRequest: () => req }) } as unknown as ExecutionContext;
      return guard.canActivate(context).then(
        () => 'ok',
        (err: DomainError) => err.code,
      );
    };

    it('take the secret part as the API key on Langfuse routes, whatever the public part', async () => {
      expect(await attemptWith('/api/public/otel/v1/traces', basic('pk-lf-anything', GOOD_KEY))).toBe('ok');
      expect(await attemptWith('/api/public/ingestion', basic('', 'sl_wrong'))).toBe('UNAUTHORIZED');
    });

    it('are not an API key anywhere else', async () => {
      expect(await attemptWith('/api/v1/otel/v1/traces', basic('pk-lf-anything', GOOD_KEY))).toBe('UNAUTHORIZED');
    });
  });
});
