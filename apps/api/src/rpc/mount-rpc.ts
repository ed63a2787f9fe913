import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TRPCError } from '@trpc/server';
import { resolveResponse } from '@trpc/server/http';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { LOGGER } from '@app/config';
import { DomainError, PAYLOAD_LIMITS } from '@app/domain';
import { bearerToken } from '../auth/api-key.guard';
import { toErrorResponse } from '../http/error-response';
import { AuthService } from '../sessions/auth.service';
import { EvaluatorsService } from './evaluators.service';
import { ProjectReadsService } from './project-reads.service';
import { type RpcContext, buildRouter } from './router';
import { toTrpcError } from './rpc-errors';
import { MonitorsService } from './monitors.service';
import { toRpcRequest } from './rpc-request';
import { StatsService } from './stats.service';
import { TenancyService } from './tenancy.service';

const RPC_PREFIX = '/api/trpc';

/**
 * `/api/trpc/*` (SPEC 4.12): tRPC without a transformer, every HTTP method reaching every
 * procedure, never rate limited. Mounted on Fastify directly, beside Nest's routes, in a scope
 * of its own so that tRPC, not the REST parser, decides what a body means.
 */
export async function mountRpc(app: NestFastifyApplication): Promise<void> {
  const auth = app.get(AuthService);
  const logger = app.get<Logger>(LOGGER);
  const router = buildRouter({ tenancy: app.get(TenancyService), evaluators: app.get(EvaluatorsService), reads: app.get(ProjectReadsService), stats: app.get(StatsService), monitors: app.get(MonitorsService) });
  const answer = async (req: FastifyRequest, parseError: TRPCError | null) => {
    const { request, error } = toRpcRequest({ url: req.url, headers: req.headers, body: !parseError && Buffer.isBuffer(req.body) ? req.body : undefined });
    return resolveResponse({
      router,
      req: request,
      path: (req.params as { path: string }).path,
      error: parseError ?? error,
      allowMethodOverride: true,
      createContext: async (): Promise<RpcContext> => ({
        ip: req.ip,
        requestId: req.id,
        session: () => {
          const token = bearerToken(req);
          if (!token) return Promise.reject(new DomainError('UNAUTHORIZED', 'missing access token: send Authorization: Bearer <ACCESS_TOKEN>'));
          return auth.verifyAccessToken(token);
        },
      }),
      // A domain error's headers (Retry-After on a 429 or 503) reach the client as on REST.
      responseMeta: ({ errors }) => ({ headers: Object.assign({}, ...errors.map((e) => (e.cause instanceof DomainError ? e.cause.headers : {}))) as Record<string, string> }),
      onError: ({ error: err, path }) => {
        if (err.code === 'INTERNAL_SERVER_ERROR') logger.error({ reqId: req.id, path, err: err.cause ?? err }, 'rpc procedure failed');
      },
    });
  };
  await app.getHttpAdapter().getInstance().register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PAYLOAD_LIMITS.default }, (_req, body, done) => done(null, body));
    scope.all(`${RPC_PREFIX}/:path`, async (req, reply) => reply.send(await answer(req, null)));
    // What fails before the handler (a body over the limit, a bad Content-Length) is answered in tRPC's shape too.
    scope.setErrorHandler(async (err, req, reply) => {
      const known = toErrorResponse(err);
      const error = known ? (toTrpcError(new DomainError(known.code, known.message)) as TRPCError) : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: err });
      return reply.send(await answer(req, error));
    });
  });
}
