import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { MonitorHistoryInput, MonitorIdInput, ProjectInput } from '../rpc/rpc.dto';
import type { MonitorsService } from './monitors.service';

// A monitor's own fields go on as sent, for validateMonitorInput (the one place of their rules).
export function monitorRouters(monitors: MonitorsService, { authed, heavy }: RpcProcedures) {
  return {
    monitor: router({
      create: authed
        .input(dto(ProjectInput))
        .mutation(({ ctx, input: { projectId, ...fields } }) => monitors.create(ctx.actor, projectId, fields)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => monitors.list(ctx.actor, input.projectId)),
      update: authed
        .input(dto(MonitorIdInput))
        .mutation(({ ctx, input: { projectId, id, ...fields } }) => monitors.update(ctx.actor, projectId, id, fields)),
      delete: authed.input(dto(MonitorIdInput)).mutation(({ ctx, input }) => monitors.delete(ctx.actor, input.projectId, input.id)),
      history: heavy
        .input(dto(MonitorHistoryInput))
        .query(({ ctx, input }) => monitors.history(ctx.actor, input.projectId, input.id, input.cursor)),
    }),
  };
}
