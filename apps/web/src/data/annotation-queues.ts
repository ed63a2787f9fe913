import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import { keys } from './query-keys';
import type { TraceFilters } from './traces';

export type AnnotationQueueSummary = Outputs['annotationQueue']['list'][number];
export type AnnotationQueue = Outputs['annotationQueue']['get'];
export type QueueItem = NonNullable<Outputs['annotationQueue']['next']['item']>;

export function useAnnotationQueues(projectId: string) {
  return useQuery({ queryKey: keys.annotationQueues.all(projectId), queryFn: () => rpc.annotationQueue.list.query({ projectId }) });
}

/** A queue with its score configs and progress. */
export function useAnnotationQueue(projectId: string, queueId: string) {
  return useQuery({
    queryKey: keys.annotationQueues.one(projectId, queueId),
    queryFn: () => rpc.annotationQueue.get.query({ projectId, queueId }),
  });
}

function useRefreshQueues(projectId: string) {
  const queries = useQueryClient();
  return () => void queries.invalidateQueries({ queryKey: keys.annotationQueues.all(projectId) });
}

export function useCreateQueue(projectId: string) {
  const refresh = useRefreshQueues(projectId);
  return useMutation({
    mutationFn: (input: { name: string; description: string; scoreConfigIds: string[] }) =>
      rpc.annotationQueue.create.mutate({ projectId, ...input }),
    onSuccess: refresh,
  });
}

export function useArchiveQueue(projectId: string) {
  const refresh = useRefreshQueues(projectId);
  return useMutation({
    mutationFn: (q: AnnotationQueueSummary) => rpc.annotationQueue.archive.mutate({ projectId, queueId: q.id, archived: !q.archived }),
    onSuccess: refresh,
  });
}

/** Traces or spans named one by one, or every trace the list's filters match (the newest, up to the server's limit). */
export type QueueAddition = { items: { traceId: string; spanId?: string }[] } | { filter: TraceFilters };

export function useAddToQueue(projectId: string) {
  const refresh = useRefreshQueues(projectId);
  return useMutation({
    mutationFn: ({ queueId, addition }: { queueId: string; addition: QueueAddition }) =>
      'items' in addition
        ? rpc.annotationQueue.addItems.mutate({ projectId, queueId, items: addition.items })
        : // On the wire a time filter is the ISO text the DTO reads, as in the trace list.
          rpc.annotationQueue.addFromFilter.mutate({ projectId, queueId, filter: addition.filter as never }),
    onSuccess: refresh,
  });
}

/** A reviewer's moves through a queue; each answer is the item now locked to them (null: nothing left for them). */
export function useReviewActions(projectId: string, queueId: string) {
  const refresh = useRefreshQueues(projectId);
  const move = useMutation({
    mutationFn: (input: { afterItemId?: string; previous?: boolean }) => rpc.annotationQueue.next.mutate({ projectId, queueId, ...input }),
  });
  const finish = useMutation({
    mutationFn: ({ itemId, skip }: { itemId: string; skip: boolean }) =>
      (skip ? rpc.annotationQueue.skip : rpc.annotationQueue.complete).mutate({ projectId, itemId }),
    onSuccess: refresh,
  });
  return { move, finish };
}
