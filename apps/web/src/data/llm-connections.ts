import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import type { toLlmConnectionInput } from '../settings/llm-connection-form';
import { keys } from './query-keys';

export type LlmConnection = Outputs['llmConnection']['list'][number];
type LlmConnectionInput = ReturnType<typeof toLlmConnectionInput>;

export function useLlmConnections(projectId: string) {
  return useQuery({ queryKey: keys.llmConnections(projectId), queryFn: () => rpc.llmConnection.list.query({ projectId }) });
}

/** Creating, changing and deleting connections; each re-reads the list. */
export function useLlmConnectionChanges(projectId: string) {
  const queries = useQueryClient();
  const onSuccess = () => void queries.invalidateQueries({ queryKey: keys.llmConnections(projectId) });
  const save = useMutation({
    mutationFn: ({ id, fields }: { id?: string; fields: LlmConnectionInput }) =>
      id ? rpc.llmConnection.update.mutate({ ...fields, projectId, id }) : rpc.llmConnection.create.mutate({ ...fields, projectId }),
    onSuccess,
  });
  const remove = useMutation({ mutationFn: (id: string) => rpc.llmConnection.delete.mutate({ projectId, id }), onSuccess });
  return { save, remove };
}
