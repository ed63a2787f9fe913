import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import type { toScoreConfigInput } from '../settings/score-config-form';
import { keys } from './query-keys';

export type ScoreConfig = Outputs['scoreConfig']['list'][number];
type ScoreConfigInput = ReturnType<typeof toScoreConfigInput>;

export function useScoreConfigs(projectId: string) {
  return useQuery({ queryKey: keys.scoreConfigs(projectId), queryFn: () => rpc.scoreConfig.list.query({ projectId }) });
}

function useRefreshScoreConfigs(projectId: string) {
  const queries = useQueryClient();
  return () => void queries.invalidateQueries({ queryKey: keys.scoreConfigs(projectId) });
}

/** Creates a config, or updates `editing` (whose data type cannot change). */
export function useSaveScoreConfig(projectId: string, editing: ScoreConfig | null) {
  const refresh = useRefreshScoreConfigs(projectId);
  return useMutation({
    mutationFn: async ({ dataType, ...input }: ScoreConfigInput) =>
      editing
        ? rpc.scoreConfig.update.mutate({ projectId, id: editing.id, ...input })
        : rpc.scoreConfig.create.mutate({ projectId, dataType, ...input }),
    onSuccess: refresh,
  });
}

export function useArchiveScoreConfig(projectId: string) {
  const refresh = useRefreshScoreConfigs(projectId);
  return useMutation({
    mutationFn: (c: ScoreConfig) => rpc.scoreConfig.archive.mutate({ projectId, id: c.id, archived: !c.archived }),
    onSuccess: refresh,
  });
}

/**
 * Scores given by hand on a trace or a span: each change is awaited until the trace reads it,
 * then every read of the project's traces (this one, the list and its score filters) is read again.
 */
export function useHandScoreActions(projectId: string) {
  const queries = useQueryClient();
  const refresh = () => void queries.invalidateQueries({ queryKey: keys.traces.all(projectId) });
  const create = useMutation({
    mutationFn: (input: { traceId: string; spanId?: string; configId: string; value: number | string | boolean; comment: string }) =>
      rpc.handScore.create.mutate({ projectId, ...input }),
    onSuccess: refresh,
  });
  const update = useMutation({
    mutationFn: (input: { id: string; value: number | string | boolean; comment: string }) =>
      rpc.handScore.update.mutate({ projectId, ...input }),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (id: string) => rpc.handScore.delete.mutate({ projectId, id }), onSuccess: refresh });
  return { create, update, remove };
}
