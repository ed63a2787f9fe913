import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import type { toEvaluatorInput } from '../settings/evaluator-form';
import { keys } from './query-keys';

export type Evaluator = Outputs['evaluator']['list'][number];
type EvaluatorInput = ReturnType<typeof toEvaluatorInput>;

export function useEvaluators(projectId: string) {
  return useQuery({ queryKey: keys.evaluators(projectId), queryFn: () => rpc.evaluator.list.query({ projectId }) });
}

export function useRefreshEvaluators(projectId: string) {
  const queries = useQueryClient();
  return () => void queries.invalidateQueries({ queryKey: keys.evaluators(projectId) });
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
