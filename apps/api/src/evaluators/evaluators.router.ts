import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { EvaluatorInput, EvaluatorRunsInput, EvaluatorTestInput, ProjectInput } from '../rpc/rpc.dto';
import type { EvaluatorTestService } from './evaluator-test.service';
import { withEvaluatorFields } from './evaluator-input';
import type { EvaluatorsService } from './evaluators.service';

export function evaluatorRouters(evaluators: EvaluatorsService, { authed, heavy }: RpcProcedures, tests: EvaluatorTestService) {
  return {
    evaluator: router({
      create: authed
        .input(withEvaluatorFields(ProjectInput))
        .mutation(({ ctx, input: { projectId, ...fields } }) => evaluators.create(ctx.actor, projectId, fields)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => evaluators.list(ctx.actor, input.projectId)),
      update: authed
        .input(withEvaluatorFields(EvaluatorInput))
        .mutation(({ ctx, input: { projectId, id, ...fields } }) => evaluators.update(ctx.actor, projectId, id, fields)),
      rotateSecret: authed
        .input(dto(EvaluatorInput))
        .mutation(({ ctx, input }) => evaluators.rotateSecret(ctx.actor, input.projectId, input.id)),
      delete: authed.input(dto(EvaluatorInput)).mutation(({ ctx, input }) => evaluators.delete(ctx.actor, input.projectId, input.id)),
      runs: heavy
        .input(dto(EvaluatorRunsInput))
        .query(({ ctx, input }) => evaluators.runs(ctx.actor, input.projectId, input.id, input.status, input.cursor)),
      // A mutation: it calls out, and a query may be repeated by caches and retries.
      test: heavy
        .input(dto(EvaluatorTestInput))
        .mutation(({ ctx, input: { projectId, ...request } }) => tests.test(ctx.actor, projectId, request)),
    }),
  };
}
