import { useQuery } from '@tanstack/react-query';
import { rpc } from '../rpc';

/**
 * How often monitors are read again. The processor evaluates them once a minute by default
 * (SPANLOG_MONITOR_INTERVAL_MS), so a new state shows within about a quarter of a round.
 */
export const MONITOR_POLL_MS = 15_000;

export const monitorsKey = (projectId: string) => ['monitors', projectId];

/** The project's monitors, polled: one query for the page and the nav's ALERT count. */
export function useMonitors(projectId: string) {
  return useQuery({ queryKey: monitorsKey(projectId), queryFn: () => rpc.monitor.list.query({ projectId }), refetchInterval: MONITOR_POLL_MS, enabled: projectId !== '' });
}
