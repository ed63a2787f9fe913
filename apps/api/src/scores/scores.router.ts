import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import {
  HandScoreCreateInput,
  HandScoreIdInput,
  HandScoreUpdateInput,
  ProjectInput,
  ScoreConfigArchiveInput,
  ScoreConfigIdInput,
} from '../rpc/rpc.dto';
import type { HandScoresService } from './hand-scores.service';
import type { ScoreConfigsService } from './score-configs.service';

export function scoreRouters(configs: ScoreConfigsService, handScores: HandScoresService, { authed }: RpcProcedures) {
  return {
    scoreConfig: router({
      // The config's fields past the projectId go on as sent for validateScoreConfigInput.
      create: authed
        .input(dto(ProjectInput))
        .mutation(({ ctx, input: { projectId, ...fields } }) => configs.create(ctx.actor, projectId, fields)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => configs.list(ctx.actor, input.projectId)),
      update: authed
        .input(dto(ScoreConfigIdInput))
        .mutation(({ ctx, input: { projectId, id, ...fields } }) => configs.update(ctx.actor, projectId, id, fields)),
      archive: authed
        .input(dto(ScoreConfigArchiveInput))
        .mutation(({ ctx, input }) => configs.archive(ctx.actor, input.projectId, input.id, input.archived ?? true)),
    }),
    // Scores given by hand; an annotation queue gives its scores through these too.
    handScore: router({
      create: authed.input(dto(HandScoreCreateInput)).mutation(({ ctx, input }) => handScores.create(ctx.actor, ctx.requestId, input)),
      update: authed.input(dto(HandScoreUpdateInput)).mutation(({ ctx, input }) => handScores.update(ctx.actor, ctx.requestId, input)),
      delete: authed.input(dto(HandScoreIdInput)).mutation(({ ctx, input }) => handScores.delete(ctx.actor, ctx.requestId, input)),
    }),
  };
}
