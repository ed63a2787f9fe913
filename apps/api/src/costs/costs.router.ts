import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { ProjectInput } from '../rpc/rpc.dto';
import type { CostsService } from './costs.service';

export function costRouters(costs: CostsService, { heavy }: RpcProcedures) {
  return {
    cost: router({
      // The range's fields go on as sent, for validateUnpricedQuery (the one place of their rules).
      unpriced: heavy
        .input(dto(ProjectInput))
        .query(({ ctx, input: { projectId, ...query } }) => costs.unpricedFor(ctx.actor, projectId, query)),
    }),
  };
}
