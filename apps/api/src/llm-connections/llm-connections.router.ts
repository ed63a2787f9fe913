import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { LlmConnectionInput, ProjectInput } from '../rpc/rpc.dto';
import type { LlmConnectionsService } from './llm-connections.service';

// A connection's own fields go on as sent, for validateLlmConnectionInput (the one place of their rules).
export function llmConnectionRouters(connections: LlmConnectionsService, { authed }: RpcProcedures) {
  return {
    llmConnection: router({
      create: authed
        .input(dto(ProjectInput))
        .mutation(({ ctx, input: { projectId, ...fields } }) => connections.create(ctx.actor, projectId, fields)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => connections.list(ctx.actor, input.projectId)),
      update: authed
        .input(dto(LlmConnectionInput))
        .mutation(({ ctx, input: { projectId, id, ...fields } }) => connections.update(ctx.actor, projectId, id, fields)),
      delete: authed.input(dto(LlmConnectionInput)).mutation(({ ctx, input }) => connections.delete(ctx.actor, input.projectId, input.id)),
    }),
  };
}
