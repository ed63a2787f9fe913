import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Monitor, toMonitorInput } from '../lib/monitor-form';
import { rpc } from '../rpc';
import { useCursorPages } from './cursor-pages';
import { keys } from './query-keys';

/**
 * How often monitors are read again. The processor evaluates them once a minute by default
 * (SPANLOG_MONITOR_INTERVAL_MS), so a new state shows within about a quarter of a round.
 */
const MONITOR_POLL_MS = 15_000;

/** The project's monitors, polled: one query for the page and the nav's ALERT count. */
export function useMonitors(projectId: string) {
  return useQuery({
    queryKey: keys.monitors.all(projectId),
    queryFn: () => rpc.monitor.list.query({ projectId }),
    refetchInterval: MONITOR_POLL_MS,
    enabled: projectId !== '',
  });
}

/** A monitor's changes of state, newest first, polled with the list. */
export function useMonitorHistory(projectId: string, id: string) {
  return useCursorPages(keys.monitors.history(projectId, id), (cursor) => rpc.monitor.history.query({ projectId, id, cursor }), {
    refetchInterval: MONITOR_POLL_MS,
  });
}

/** Re-reads the project's monitors and their histories. */
export function useRefreshMonitors(projectId: string) {
  const queries = useQueryClient();
  return () => void queries.invalidateQueries({ queryKey: keys.monitors.all(projectId) });
}

/** Creates a monitor, or updates `editing`. */
export function useSaveMonitor(projectId: string, editing: Monitor | null) {
  return useMutation({
    mutationFn: (input: ReturnType<typeof toMonitorInput>) =>
      editing ? rpc.monitor.update.mutate({ ...input, projectId, id: editing.id }) : rpc.monitor.create.mutate({ ...input, projectId }),
  });
}

export function useDeleteMonitor(projectId: string) {
  return useMutation({ mutationFn: (m: Monitor) => rpc.monitor.delete.mutate({ projectId, id: m.id }) });
}
