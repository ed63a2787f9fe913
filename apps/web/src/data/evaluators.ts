import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EvalRunStatus } from '@app/domain/evaluators/eval-run';
import { type Outputs, rpc } from '../rpc';
import type { toEvaluatorInput } from '../settings/evaluator-form';
import { useCursorPages } from './cursor-pages';
import { keys } from './query-keys';

export type Evaluator = Outputs['evaluator']['list'][number];
export type EvalRun = Outputs['evaluator']['runs']['data'][number];
export type EvaluatorTestResult = Outputs['evaluator']['test'];
type EvaluatorInput = ReturnType<typeof toEvaluatorInput>;

export function useEvaluators(projectId: string) {
  return useQuery({ queryKey: keys.evaluators.all(projectId), queryFn: () => rpc.evaluator.list.query({ projectId }) });
}

export function useRefreshEvaluators(projectId: string) {
  const queries = useQueryClient();
  return () => void queries.invalidateQueries({ queryKey: keys.evaluators.all(projectId) });
}

/** Creates an evaluator (answering its signing secret, shown once), or updates `editing`. */
export function useSaveEvaluator(projectId: string, editing: Evaluator | null) {
  return useMutation({
    mutationFn: async (input: EvaluatorInput): Promise<{ signingSecret: string | null }> => {
      if (!editing) return rpc.evaluator.create.mutate({ projectId, ...input });
      await rpc.evaluator.update.mutate({ projectId, id: editing.id, ...input });
      return { signingSecret: null };
    },
  });
}

/** Enabling or disabling, rotating the secret and deleting, from the list's row actions. */
export function useEvaluatorActions(projectId: string) {
  const refresh = useRefreshEvaluators(projectId);
  const toggle = useMutation({
    mutationFn: (e: Evaluator) => rpc.evaluator.update.mutate({ projectId, id: e.id, enabled: !e.enabled }),
    onSuccess: refresh,
  });
  const rotate = useMutation({ mutationFn: (e: Evaluator) => rpc.evaluator.rotateSecret.mutate({ projectId, id: e.id }) });
  const remove = useMutation({ mutationFn: (e: Evaluator) => rpc.evaluator.delete.mutate({ projectId, id: e.id }), onSuccess: refresh });
  return { toggle, rotate, remove };
}

/** An evaluator's run log, newest first, one page of the cursor more at a time; `status` null: every run. */
export function useEvaluatorRuns(projectId: string, id: string, status: EvalRunStatus | null) {
  return useCursorPages(keys.evaluators.runs(projectId, id, status), (cursor) =>
    rpc.evaluator.runs.query({ projectId, id, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) }),
  );
}

/**
 * One test run of a saved evaluator or of the form's configuration, on a span or a trace
 * (`evaluator.test`): it answers what would be scored and stores nothing.
 */
export function useTestEvaluator(projectId: string) {
  return useMutation({
    mutationFn: ({
      subject,
      on,
      id,
    }: {
      subject: { evaluatorId: string } | { config: EvaluatorInput };
      on: 'spanId' | 'traceId';
      id: string;
    }) => rpc.evaluator.test.mutate({ projectId, ...subject, [on]: id }),
  });
}
