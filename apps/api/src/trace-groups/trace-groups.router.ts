import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { ProjectInput } from '../rpc/rpc.dto';
import type { TraceGroupReadsService } from './trace-group-reads.service';

// A session's or user's query goes on as sent past its projectId, for the domain's rules (group-query.ts).
export function traceGroupRouters(reads: TraceGroupReadsService, { authed }: RpcProcedures) {
  return {
    traceSession: router({
      list: authed
        .input(dto(ProjectInput))
        .query(({ ctx, input: { projectId, ...query } }) => reads.listSessions(ctx.actor, projectId, query)),
      get: authed
        .input(dto(ProjectInput))
        .query(({ ctx, input: { projectId, ...query } }) => reads.getSession(ctx.actor, projectId, query)),
    }),
    traceUser: router({
      list: authed
        .input(dto(ProjectInput))
        .query(({ ctx, input: { projectId, ...query } }) => reads.listUsers(ctx.actor, projectId, query)),
      get: authed
        .input(dto(ProjectInput))
        .query(({ ctx, input: { projectId, ...query } }) => reads.getUser(ctx.actor, projectId, (query as { id?: unknown }).id)),
    }),
  };
}
