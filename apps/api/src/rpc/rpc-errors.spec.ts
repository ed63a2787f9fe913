import 'reflect-metadata';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError, resolveResponse } from '@trpc/server/http';
import { DomainError, ERROR_STATUS, type ErrorCode } from '@app/domain';
import { RpcCallLimiter } from '../rate-limit/rpc-call-limiter';
import { tenancyRouters } from '../tenancy/tenancy.router';
import type { TenancyService } from '../tenancy/tenancy.service';
import { rpcProcedures, router } from './procedures';
import { formatRpcError, toTrpcError, trpcCodeOf } from './rpc-errors';

describe(trpcCodeOf.name, () => {
  it.each(Object.keys(ERROR_STATUS) as ErrorCode[])('gives %s the same HTTP status over tRPC as over REST', (code) => {
    const status = getHTTPStatusCodeFromError(new TRPCError({ code: trpcCodeOf(code) }));
    expect(status).toBe(ERROR_STATUS[code]);
  });
});

describe(toTrpcError.name, () => {
  it('keeps the message of a domain error', () => {
    const mapped = toTrpcError(new DomainError('FORBIDDEN', 'not a member')) as TRPCError;
    expect(mapped).toBeInstanceOf(TRPCError);
    expect(mapped).toMatchObject({ code: 'FORBIDDEN', message: 'not a member' });
  });

  it('answers 503 when Postgres cannot serve, as REST does', () => {
    const mapped = toTrpcError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })) as TRPCError;
    expect(mapped).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(getHTTPStatusCodeFromError(mapped)).toBe(503);
  });

  it('leaves other errors to tRPC', () => {
    const err = new TypeError('boom');
    expect(toTrpcError(err)).toBe(err);
  });
});

describe(formatRpcError.name, () => {
  const POSTGRES_MESSAGE = 'invalid byte sequence for encoding "UTF8": 0x00';

  /** One call of `user.me` over HTTP, answered by tRPC with the router's own error formatter. */
  async function callFailing(failure: unknown) {
    const tenancy = { me: async () => Promise.reject(failure) } as unknown as TenancyService;
    const response = await resolveResponse({
      router: router(tenancyRouters(tenancy, rpcProcedures(new RpcCallLimiter()))),
      req: new Request('http://rpc.invalid/api/trpc/user.me'),
      path: 'user.me',
      error: null,
      createContext: async () => ({ ip: null, requestId: 'req-42', session: async () => ({ sub: 'u', sid: 's', typ: 'access' as const }) }),
    });
    return { status: response.status, text: await response.text() };
  }

  it('answers an internal error with a generic message and the request id, none of its own text, and no other error so', async () => {
    const internal = await callFailing(new Error(POSTGRES_MESSAGE));
    expect(internal.status).toBe(500);
    expect(JSON.parse(internal.text).error).toMatchObject({
      message: 'internal error (request id req-42); retry with backoff',
      data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 },
    });
    expect(internal.text).not.toContain('UTF8');
    expect(internal.text).not.toContain('stack');

    const actionable = await callFailing(new DomainError('NOT_FOUND', 'organization not found'));
    expect(actionable.status).toBe(404);
    expect(JSON.parse(actionable.text).error.message).toBe('organization not found');
  });
});
