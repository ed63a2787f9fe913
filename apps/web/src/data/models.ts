import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import { keys } from './query-keys';

export type ModelList = Outputs['model']['list'];
export type ModelDefinition = ModelList['project'][number];
/** A definition's fields as `model.create|update` take them. */
export interface ModelFields {
  modelName: string;
  matchPattern: string;
  startDate?: string;
  prices: Record<string, number>;
}

/** The project's and the built-in definitions, and the recomputation's progress, read again every 2 s while one runs. */
export function useModels(projectId: string) {
  return useQuery({
    queryKey: keys.models(projectId),
    queryFn: () => rpc.model.list.query({ projectId }),
    refetchInterval: (query) => (query.state.data?.recomputation?.status === 'running' ? 2_000 : false),
  });
}

/** Adding, changing and deleting definitions; each re-reads the list (and so the recomputation it started). */
export function useModelChanges(projectId: string) {
  const queries = useQueryClient();
  const onSuccess = () => void queries.invalidateQueries({ queryKey: keys.models(projectId) });
  const save = useMutation({
    mutationFn: ({ id, fields }: { id?: string; fields: ModelFields }) =>
      id ? rpc.model.update.mutate({ ...fields, projectId, id }) : rpc.model.create.mutate({ ...fields, projectId }),
    onSuccess,
  });
  const remove = useMutation({ mutationFn: (id: string) => rpc.model.delete.mutate({ projectId, id }), onSuccess });
  return { save, remove };
}
