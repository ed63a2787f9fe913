import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TRPCError } from '@trpc/server';
import { resolveResponse } from '@trpc/server/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { LOGGER } from '@app/config';
import { DomainError, PAYLOAD_LIMITS, RPC_LIMITS, validationError } from '@app/domain';
import { RpcCallLimiter } from '../rate-limit/rpc-call-limiter';
import { bearerToken } from '../auth/api-key.guard';
import { toErrorResponse } from '../http/error-response';
import { EvaluatorTestService } from '../evaluators/evaluator-test.service';
import { EvaluatorsService } from '../evaluators/evaluators.service';
import { LlmConnectionsService } from '../llm-connections/llm-connections.service';
import { AnnotationQueuesService } from '../scores/annotation-queues.service';
import { HandScoresService } from '../scores/hand-scores.service';
import { ScoreConfigsService } from '../scores/score-configs.service';
import { MonitorsService } from '../monitors/monitors.service';
import { ModelsService } from '../models/models.service';
import { PromptReadsService } from '../prompts/prompt-reads.service';
import { DatasetEditsService } from '../datasets/dataset-edits.service';
import { DatasetReadsService } from '../datasets/dataset-reads.service';
import { AuthService } from '../sessions/auth.service';
import { StatsService } from '../stats/stats.service';
import { CostsService } from '../costs/costs.service';
import { TenancyService } from '../tenancy/tenancy.service';
import { TraceGroupReadsService } from '../trace-groups/trace-group-reads.service';
import { TraceReadsService } from '../traces/trace-reads.service';
import { type RpcContext, buildRouter } from './router';
import { toTrpcError } from './rpc-errors';
import { toRpcRequest } from './rpc-request';

const RPC_PREFIX = '/api/trpc';
/** The procedures whose body may be over PAYLOAD_LIMITS.default: dataset items, as many as REST takes. */
const LARGE_BODY_PROCEDURES = ['dataset.upsertItems', 'dataset.checkItems'];

/** The procedure path of a request: the wildcard's part, or the procedure a route of its own names. */
const procedurePath = (req: FastifyRequest): string =>
  (req.params as { '*'?: string })['*'] ?? req.routeOptions.url?.slice(RPC_PREFIX.length + 1) ?? '';

/** A batch of more calls than RPC_LIMITS.batchCalls is refused whole, before any call runs. */
function batchProblem(path: string): TRPCError | null {
  const calls = path.split(',').length;
  if (calls <= RPC_LIMITS.batchCalls) return null;
  return toTrpcError(validationError(`batch: at most ${RPC_LIMITS.batchCalls} calls per request, got ${calls}`)) as TRPCError;
}

/** Headers a refusal asks for (Retry-After on 429 and 503), from the domain errors behind the answer. */
function errorHeaders(errors: TRPCError[]): Record<string, string> {
  return Object.assign({}, ...errors.map((e) => (e.cause instanceof DomainError ? e.cause.headers : {})));
}

/**
 * `/api/trpc/*` (SPEC 4.12): tRPC without a transformer, every HTTP method reaching every
 * procedure, outside the per-key rate limits; heavy reads are counted per session instead
 * (RPC_LIMITS). Mounted on Fastify directly, beside Nest's routes, in a scope of its own so
 * that tRPC, not the REST parser, decides what a body means.
 */
export async function mountRpc(app: NestFastifyApplication): Promise<void> {
  const auth = app.get(AuthService);
  const logger = app.get<Logger>(LOGGER);
  const router = buildRouter({
    tenancy: app.get(TenancyService),
    evaluators: app.get(EvaluatorsService),
    evaluatorTests: app.get(EvaluatorTestService),
    llmConnections: app.get(LlmConnectionsService),
    traces: app.get(TraceReadsService),
    traceGroups: app.get(TraceGroupReadsService),
    prompts: app.get(PromptReadsService),
    stats: app.get(StatsService),
    costs: app.get(CostsService),
    monitors: app.get(MonitorsService),
    datasets: app.get(DatasetReadsService),
    datasetEdits: app.get(DatasetEditsService),
    models: app.get(ModelsService),
    scoreConfigs: app.get(ScoreConfigsService),
    handScores: app.get(HandScoresService),
    annotationQueues: app.get(AnnotationQueuesService),
    limiter: new RpcCallLimiter(),
  });
  const answer = async (req: FastifyRequest, parseError: TRPCError | null) => {
    const path = procedurePath(req);
    const refusedBatch = parseError ? null : batchProblem(path);
    // A refused batch is answered as one call, so that the refusal is one error rather than one per call.
    const url = refusedBatch ? req.url.replace(/([?&])batch=1(&|$)/, '$1') : req.url;
    const { request, error } = toRpcRequest({
      url,
      headers: req.headers,
      body: !parseError && Buffer.isBuffer(req.body) ? req.body : undefined,
    });
    return resolveResponse({
      router,
      req: request,
      path,
      error: parseError ?? refusedBatch ?? error,
      allowMethodOverride: true,
      responseMeta: ({ errors }) => ({ headers: errorHeaders(errors) }),
      createContext: async (): Promise<RpcContext> => ({
        ip: req.ip,
        requestId: req.id,
        session: () => {
          const token = bearerToken(req);
          if (!token)
            return Promise.reject(new DomainError('UNAUTHORIZED', 'missing access token: send Authorization: Bearer <ACCESS_TOKEN>'));
          return auth.verifyAccessToken(token);
        },
      }),
      onError: ({ error: err, path }) => {
        if (err.code === 'INTERNAL_SERVER_ERROR') logger.error({ reqId: req.id, path, err: err.cause ?? err }, 'rpc procedure failed');
      },
    });
  };
  await app
    .getHttpAdapter()
    .getInstance()
    .register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PAYLOAD_LIMITS.default }, (_req, body, done) => done(null, body));
      // A wildcard, not `:path`: Fastify cuts a parameter at 100 characters and answered a batch of ~20 calls 404; batchProblem bounds it.
      const handle = async (req: FastifyRequest, reply: FastifyReply) => {
        // A procedure path has no slash: anything deeper is no RPC route, answered as every unknown path is.
        if (procedurePath(req).includes('/')) return reply.callNotFound();
        return reply.send(await answer(req, null));
      };
      // Items sent from the dashboard take REST's body limit (PAYLOAD_LIMITS.datasetItems), alone, never in a batch.
      for (const procedure of LARGE_BODY_PROCEDURES)
        scope.all(`${RPC_PREFIX}/${procedure}`, { bodyLimit: PAYLOAD_LIMITS.datasetItems }, handle);
      scope.all(`${RPC_PREFIX}/*`, handle);
      // What fails before the handler (a body over the limit, a bad Content-Length) is answered in tRPC's shape too.
      scope.setErrorHandler(async (err, req, reply) => {
        const known = toErrorResponse(err);
        const error = known
          ? (toTrpcError(new DomainError(known.code, known.message)) as TRPCError)
          : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: err });
        return reply.send(await answer(req, error));
      });
    });
}
