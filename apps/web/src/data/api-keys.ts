import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import { keys } from './query-keys';

export type CreatedApiKey = Outputs['apiKey']['create'];

export function useApiKeys(projectId: string) {
  return useQuery({ queryKey: keys.apiKeys(projectId), queryFn: () => rpc.apiKey.list.query({ projectId }) });
}

/** Creating and revoking keys; each re-reads the list. */
export function useApiKeyChanges(projectId: string) {
  const queries = useQueryClient();
  const onSuccess = () => void queries.invalidateQueries({ queryKey: keys.apiKeys(projectId) });
  const create = useMutation({ mutationFn: (name: string) => rpc.apiKey.create.mutate({ projectId, name }), onSuccess });
  const revoke = useMutation({ mutationFn: (id: string) => rpc.apiKey.revoke.mutate({ projectId, id }), onSuccess });
  return { create, revoke };
}
