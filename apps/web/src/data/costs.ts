import { useQuery } from '@tanstack/react-query';
import { rpc } from '../rpc';
import { keys } from './query-keys';

/** The models and usage types seen without a price in the `spanMs` up to `now`, read again when either changes. */
export function useUnpricedUsage(projectId: string, range: string, spanMs: number, now: number) {
  return useQuery({
    queryKey: keys.costs.unpriced(projectId, range, now),
    queryFn: () => {
      // As the overview's: the range passes the router's projectId DTO as sent (validateUnpricedQuery reads it).
      const input = { projectId, from: new Date(now - spanMs).toISOString(), to: new Date(now).toISOString() };
      return rpc.cost.unpriced.query(input);
    },
  });
}
