import { useQuery } from '@tanstack/react-query';
import { rpc } from '../rpc';
import { keys } from './query-keys';

/** The overview of the `spanMs` up to `now`, read again when either changes. */
export function useOverview(projectId: string, range: string, spanMs: number, now: number) {
  return useQuery({
    queryKey: keys.overview(projectId, range, now),
    queryFn: () => {
      // The range's fields pass the router's projectId DTO as sent (validateOverviewRange reads them), so its input type names projectId alone.
      const input = { projectId, from: new Date(now - spanMs).toISOString(), to: new Date(now).toISOString() };
      return rpc.stats.overview.query(input);
    },
  });
}
