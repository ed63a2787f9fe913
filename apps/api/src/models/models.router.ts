import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { ModelIdInput, ProjectInput } from '../rpc/rpc.dto';
import type { ModelsService } from './models.service';

// A definition's own fields go on as sent, for validateModelDefinition (the one place of their rules).
export function modelRouters(models: ModelsService, { authed }: RpcProcedures) {
  return {
    model: router({
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => models.list(ctx.actor, input.projectId)),
      create: authed
        .input(dto(ProjectInput))
        .mutation(({ ctx, input: { projectId, ...fields } }) => models.create(ctx.actor, projectId, fields)),
      update: authed
        .input(dto(ModelIdInput))
        .mutation(({ ctx, input: { projectId, id, ...fields } }) => models.update(ctx.actor, projectId, id, fields)),
      delete: authed.input(dto(ModelIdInput)).mutation(({ ctx, input }) => models.delete(ctx.actor, input.projectId, input.id)),
    }),
  };
}
