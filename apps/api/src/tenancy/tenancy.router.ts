import { type RpcProcedures, router } from '../rpc/procedures';
import { dto, optionalDto } from '../rpc/rpc-input';
import {
  ApiKeyCreateInput,
  ApiKeyRevokeInput,
  AuditLogInput,
  MemberAddInput,
  MemberRemoveInput,
  OrgCreateInput,
  OrgInput,
  ProjectCreateInput,
  ProjectInput,
  SecurityLogInput,
} from '../rpc/rpc.dto';
import type { TenancyService } from './tenancy.service';

/** The account, its organizations, projects, keys, members, usage and audit log. */
export function tenancyRouters(tenancy: TenancyService, { authed, heavy }: RpcProcedures) {
  return {
    user: router({
      me: authed.query(({ ctx }) => tenancy.me(ctx.actor)),
      securityLog: heavy.input(optionalDto(SecurityLogInput)).query(({ ctx, input }) => tenancy.securityLog(ctx.actor, input.cursor)),
    }),
    organization: router({
      list: authed.query(({ ctx }) => tenancy.listOrgs(ctx.actor)),
      create: authed.input(dto(OrgCreateInput)).mutation(({ ctx, input }) => tenancy.createOrg(ctx.actor, input.name)),
    }),
    project: router({
      list: authed.input(dto(OrgInput)).query(({ ctx, input }) => tenancy.listProjects(ctx.actor, input.orgId)),
      create: authed.input(dto(ProjectCreateInput)).mutation(({ ctx, input }) => tenancy.createProject(ctx.actor, input.orgId, input.name)),
    }),
    apiKey: router({
      create: authed
        .input(dto(ApiKeyCreateInput))
        .mutation(({ ctx, input }) => tenancy.createApiKey(ctx.actor, input.projectId, input.name)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => tenancy.listApiKeys(ctx.actor, input.projectId)),
      revoke: authed.input(dto(ApiKeyRevokeInput)).mutation(({ ctx, input }) => tenancy.revokeApiKey(ctx.actor, input.projectId, input.id)),
    }),
    member: router({
      list: authed.input(dto(OrgInput)).query(({ ctx, input }) => tenancy.listMembers(ctx.actor, input.orgId)),
      add: authed
        .input(dto(MemberAddInput))
        .mutation(({ ctx, input }) => tenancy.addMember(ctx.actor, input.orgId, input.email, input.role)),
      remove: authed
        .input(dto(MemberRemoveInput))
        .mutation(({ ctx, input }) => tenancy.removeMember(ctx.actor, input.orgId, input.userId, input.revokeKeys)),
    }),
    usage: router({
      get: authed.input(dto(OrgInput)).query(({ ctx, input }) => tenancy.usage(ctx.actor, input.orgId)),
      daily: heavy.input(dto(OrgInput)).query(({ ctx, input }) => tenancy.usageDaily(ctx.actor, input.orgId)),
    }),
    auditLog: router({
      list: heavy.input(dto(AuditLogInput)).query(({ ctx, input }) => tenancy.auditLog(ctx.actor, input.orgId, input.cursor)),
    }),
  };
}
