import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { DomainError, ERROR_STATUS, type ErrorCode } from '@app/domain';
import { toTrpcError, trpcCodeOf } from './rpc-errors';

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
