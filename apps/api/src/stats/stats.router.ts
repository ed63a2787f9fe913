import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { ProjectInput } from '../rpc/rpc.dto';
import type { StatsService } from './stats.service';

export function statsRouters(stats: StatsService, { heavy }: RpcProcedures) {
  return {
    stats: router({
      // The range's fields go on as sent, for validateOverviewRange (the one place of their rules).
      overview: heavy
        .input(dto(ProjectInput))
        .query(({ ctx, input: { projectId, ...range } }) => stats.overview(ctx.actor, projectId, range)),
    }),
  };
}
