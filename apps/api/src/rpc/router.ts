import { initTRPC } from '@trpc/server';
import type { AccessClaims } from '../sessions/auth.service';
import type { RpcCallLimiter } from '../rate-limit/rpc-call-limiter';
import { TraceGetInput, TraceListInput, TracePageInput, TraceSpanInput } from '../traces/trace-query.dto';
import type { EvaluatorsService } from './evaluators.service';
import type { ProjectReadsService } from './project-reads.service';
import type { MonitorsService } from './monitors.service';
import type { StatsService } from './stats.service';
import { formatRpcError, toTrpcError } from './rpc-errors';
import { dto, optionalDto } from './rpc-input';
import {
  ApiKeyCreateInput,
  ApiKeyRevokeInput,
  AuditLogInput,
  EvaluatorInput,
  MemberAddInput,
  MemberRemoveInput,
  MonitorHistoryInput,
  MonitorIdInput,
  OrgCreateInput,
  OrgInput,
  ProjectCreateInput,
  ProjectInput,
  PromptListInput,
  PromptVersionsInput,
  SecurityLogInput,
} from './rpc.dto';
import type { Actor, TenancyService } from './tenancy.service';

export interface RpcContext {
  /** Resolves the caller's session, or rejects with UNAUTHORIZED; lazy so that every error has tRPC's shape. */
  session: () => Promise<AccessClaims>;
  ip: string | null;
  /** The HTTP request's id, which an internal error's message and log line carry. */
  requestId: string;
}

// Never dev mode: error bodies would carry stack traces to any caller.
const t = initTRPC.context<RpcContext>().create({ isDev: false, errorFormatter: formatRpcError });

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

/** The services behind the procedures, one per area. */
export interface RpcServices {
  tenancy: TenancyService;
  evaluators: EvaluatorsService;
  reads: ProjectReadsService;
  stats: StatsService;
  monitors: MonitorsService;
  /** Counts the heavy calls of each session (RPC_LIMITS). */
  limiter: RpcCallLimiter;
}

/** The dashboard RPC (CONTRACT "Auth and the dashboard RPC"); every procedure is session-authenticated. */
export function buildRouter({ tenancy, evaluators, reads, stats, monitors, limiter }: RpcServices) {
  /** Reads whose cost the caller chooses (a trace, a page, a range, a history): counted per session, 429 past the limit. */
  const heavy = authed.use(async ({ ctx, next }) => {
    await limiter.take(ctx.sessionId);
    return next();
  });
  return t.router({
    user: t.router({
      me: authed.query(({ ctx }) => tenancy.me(ctx.actor)),
      securityLog: heavy.input(optionalDto(SecurityLogInput)).query(({ ctx, input }) => tenancy.securityLog(ctx.actor, input.cursor)),
    }),
    organization: t.router({
      list: authed.query(({ ctx }) => tenancy.listOrgs(ctx.actor)),
      create: authed.input(dto(OrgCreateInput)).mutation(({ ctx, input }) => tenancy.createOrg(ctx.actor, input.name)),
    }),
    project: t.router({
      list: authed.input(dto(OrgInput)).query(({ ctx, input }) => tenancy.listProjects(ctx.actor, input.orgId)),
      create: authed.input(dto(ProjectCreateInput)).mutation(({ ctx, input }) => tenancy.createProject(ctx.actor, input.orgId, input.name)),
    }),
    apiKey: t.router({
      create: authed.input(dto(ApiKeyCreateInput)).mutation(({ ctx, input }) => tenancy.createApiKey(ctx.actor, input.projectId, input.name)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => tenancy.listApiKeys(ctx.actor, input.projectId)),
      revoke: authed.input(dto(ApiKeyRevokeInput)).mutation(({ ctx, input }) => tenancy.revokeApiKey(ctx.actor, input.projectId, input.id)),
    }),
    member: t.router({
      list: authed.input(dto(OrgInput)).query(({ ctx, input }) => tenancy.listMembers(ctx.actor, input.orgId)),
      add: authed.input(dto(MemberAddInput)).mutation(({ ctx, input }) => tenancy.addMember(ctx.actor, input.orgId, input.email, input.role)),
      remove: authed.input(dto(MemberRemoveInput)).mutation(({ ctx, input }) => tenancy.removeMember(ctx.actor, input.orgId, input.userId, input.revokeKeys)),
    }),
    usage: t.router({
      get: authed.input(dto(OrgInput)).query(({ ctx, input }) => tenancy.usage(ctx.actor, input.orgId)),
      daily: heavy.input(dto(OrgInput)).query(({ ctx, input }) => tenancy.usageDaily(ctx.actor, input.orgId)),
    }),
    auditLog: t.router({
      list: heavy.input(dto(AuditLogInput)).query(({ ctx, input }) => tenancy.auditLog(ctx.actor, input.orgId, input.cursor)),
    }),
    evaluator: t.router({
      create: authed.input(dto(ProjectInput)).mutation(({ ctx, input: { projectId, ...fields } }) => evaluators.create(ctx.actor, projectId, fields)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => evaluators.list(ctx.actor, input.projectId)),
      update: authed.input(dto(EvaluatorInput)).mutation(({ ctx, input: { projectId, id, ...fields } }) => evaluators.update(ctx.actor, projectId, id, fields)),
      rotateSecret: authed.input(dto(EvaluatorInput)).mutation(({ ctx, input }) => evaluators.rotateSecret(ctx.actor, input.projectId, input.id)),
      delete: authed.input(dto(EvaluatorInput)).mutation(({ ctx, input }) => evaluators.delete(ctx.actor, input.projectId, input.id)),
    }),
    trace: t.router({
      list: heavy.input(dto(TraceListInput)).query(({ ctx, input }) => reads.listTraces(ctx.actor, input)),
      // The trace and a page of its spans and scores; trace.spans and trace.scores page on, trace.span gives one span whole.
      get: heavy.input(dto(TraceGetInput)).query(({ ctx, input }) => reads.getTrace(ctx.actor, input)),
      spans: heavy.input(dto(TracePageInput)).query(({ ctx, input }) => reads.traceSpans(ctx.actor, input)),
      span: heavy
        .use(async ({ ctx, next }) => {
          await limiter.take(ctx.sessionId, 'wholeSpan');
          return next();
        })
        .input(dto(TraceSpanInput))
        .query(({ ctx, input }) => reads.traceSpan(ctx.actor, input)),
      scores: heavy.input(dto(TracePageInput)).query(({ ctx, input }) => reads.traceScores(ctx.actor, input)),
      // A picker's known values: field, prefix, limit past the projectId go on for the domain's rules.
      filterValues: authed.input(dto(ProjectInput)).query(({ ctx, input: { projectId, ...query } }) => reads.filterValues(ctx.actor, projectId, query)),
    }),
    // A session's or user's query goes on as sent past its projectId, for the domain's rules (group-query.ts).
    traceSession: t.router({
      list: authed.input(dto(ProjectInput)).query(({ ctx, input: { projectId, ...query } }) => reads.listSessions(ctx.actor, projectId, query)),
      get: authed.input(dto(ProjectInput)).query(({ ctx, input: { projectId, ...query } }) => reads.getSession(ctx.actor, projectId, query)),
    }),
    traceUser: t.router({
      list: authed.input(dto(ProjectInput)).query(({ ctx, input: { projectId, ...query } }) => reads.listUsers(ctx.actor, projectId, query)),
      get: authed.input(dto(ProjectInput)).query(({ ctx, input: { projectId, ...query } }) => reads.getUser(ctx.actor, projectId, (query as { id?: unknown }).id)),
    }),
    stats: t.router({
      // The range's fields go on as sent, for validateOverviewRange (the one place of their rules).
      overview: heavy.input(dto(ProjectInput)).query(({ ctx, input: { projectId, ...range } }) => stats.overview(ctx.actor, projectId, range)),
    }),
    // A monitor's own fields go on as sent, for validateMonitorInput (the one place of their rules).
    monitor: t.router({
      create: authed.input(dto(ProjectInput)).mutation(({ ctx, input: { projectId, ...fields } }) => monitors.create(ctx.actor, projectId, fields)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => monitors.list(ctx.actor, input.projectId)),
      update: authed.input(dto(MonitorIdInput)).mutation(({ ctx, input: { projectId, id, ...fields } }) => monitors.update(ctx.actor, projectId, id, fields)),
      delete: authed.input(dto(MonitorIdInput)).mutation(({ ctx, input }) => monitors.delete(ctx.actor, input.projectId, input.id)),
      history: heavy.input(dto(MonitorHistoryInput)).query(({ ctx, input }) => monitors.history(ctx.actor, input.projectId, input.id, input.cursor)),
    }),
    prompt: t.router({
      list: heavy.input(dto(PromptListInput)).query(({ ctx, input }) => reads.listPrompts(ctx.actor, input.projectId, input.cursor)),
      versions: heavy.input(dto(PromptVersionsInput)).query(({ ctx, input }) => reads.promptVersions(ctx.actor, input.projectId, input.name, input.cursor)),
    }),
  });
}

export type AppRouter = ReturnType<typeof buildRouter>;
