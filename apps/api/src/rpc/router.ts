import { initTRPC } from '@trpc/server';
import type { AccessClaims } from '../sessions/auth.service';
import { withEvaluatorFields } from './evaluator-input';
import type { EvaluatorsService } from './evaluators.service';
import { formatRpcError, toTrpcError } from './rpc-errors';
import { dto, optionalDto } from './rpc-input';
import {
  ApiKeyCreateInput,
  ApiKeyRevokeInput,
  AuditLogInput,
  EvaluatorInput,
  MemberAddInput,
  MemberRemoveInput,
  OrgCreateInput,
  OrgInput,
  ProjectCreateInput,
  ProjectInput,
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
  return next({ ctx: { actor: { userId: claims.sub, ip: ctx.ip } satisfies Actor } });
});

/** The dashboard RPC (CONTRACT "Auth and the dashboard RPC"); every procedure is session-authenticated. */
export function buildRouter(tenancy: TenancyService, evaluators: EvaluatorsService) {
  return t.router({
    user: t.router({
      me: authed.query(({ ctx }) => tenancy.me(ctx.actor)),
      securityLog: authed.input(optionalDto(SecurityLogInput)).query(({ ctx, input }) => tenancy.securityLog(ctx.actor, input.cursor)),
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
    }),
    auditLog: t.router({
      list: authed.input(dto(AuditLogInput)).query(({ ctx, input }) => tenancy.auditLog(ctx.actor, input.orgId, input.cursor)),
    }),
    evaluator: t.router({
      create: authed.input(withEvaluatorFields(ProjectInput)).mutation(({ ctx, input: { projectId, ...fields } }) => evaluators.create(ctx.actor, projectId, fields)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => evaluators.list(ctx.actor, input.projectId)),
      update: authed.input(withEvaluatorFields(EvaluatorInput)).mutation(({ ctx, input: { projectId, id, ...fields } }) => evaluators.update(ctx.actor, projectId, id, fields)),
      rotateSecret: authed.input(dto(EvaluatorInput)).mutation(({ ctx, input }) => evaluators.rotateSecret(ctx.actor, input.projectId, input.id)),
      delete: authed.input(dto(EvaluatorInput)).mutation(({ ctx, input }) => evaluators.delete(ctx.actor, input.projectId, input.id)),
    }),
  });
}

export type AppRouter = ReturnType<typeof buildRouter>;
