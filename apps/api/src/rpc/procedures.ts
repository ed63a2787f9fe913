import { initTRPC } from '@trpc/server';
import type { Actor } from '../access/access.service';
import type { RpcCallLimiter } from '../rate-limit/rpc-call-limiter';
import type { AccessClaims } from '../sessions/auth.service';
import { formatRpcError, toTrpcError } from './rpc-errors';

export interface RpcContext {
  /** Resolves the caller's session, or rejects with UNAUTHORIZED; lazy so that every error has tRPC's shape. */
  session: () => Promise<AccessClaims>;
  ip: string | null;
  /** The HTTP request's id, which an internal error's message and log line carry. */
  requestId: string;
}

// Never dev mode: error bodies would carry stack traces to any caller.
const t = initTRPC.context<RpcContext>().create({ isDev: false, errorFormatter: formatRpcError });

export const router = t.router;

/** The services speak domain errors; here they become tRPC errors with the same status. */
const procedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause) {
    const mapped = toTrpcError(result.error.cause);
    if (mapped !== result.error.cause) throw mapped;
  }
  return result;
});

const authed = procedure.use(async ({ ctx, next }) => {
  const claims = await ctx.session();
  return next({ ctx: { actor: { userId: claims.sub, ip: ctx.ip } satisfies Actor, sessionId: claims.sid } });
});

/** The procedure kinds every area's router part builds on; every one is session-authenticated. */
export function rpcProcedures(limiter: RpcCallLimiter) {
  /** Reads whose cost the caller chooses (a trace, a page, a range, a history): counted per session, 429 past the limit. */
  const heavy = authed.use(async ({ ctx, next }) => {
    await limiter.take(ctx.sessionId);
    return next();
  });
  /** A span read whole: counted as heavy and against its own, smaller share. */
  const wholeSpan = heavy.use(async ({ ctx, next }) => {
    await limiter.take(ctx.sessionId, 'wholeSpan');
    return next();
  });
  return { authed, heavy, wholeSpan };
}

export type RpcProcedures = ReturnType<typeof rpcProcedures>;
