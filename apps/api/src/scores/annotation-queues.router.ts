import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import {
  AnnotationQueueAddFromFilterInput,
  AnnotationQueueAddItemsInput,
  AnnotationQueueArchiveInput,
  AnnotationQueueCreateInput,
  AnnotationQueueIdInput,
  AnnotationQueueItemInput,
  AnnotationQueueItemsInput,
  AnnotationQueueNextInput,
  AnnotationQueueUpdateInput,
  ProjectInput,
} from '../rpc/rpc.dto';
import type { AnnotationQueuesService } from './annotation-queues.service';

export function annotationQueueRouters(queues: AnnotationQueuesService, { authed, heavy }: RpcProcedures) {
  return {
    // A reviewer's scores go through handScore.create; a queue says what to review and who did it.
    annotationQueue: router({
      create: authed.input(dto(AnnotationQueueCreateInput)).mutation(({ ctx, input }) => queues.create(ctx.actor, input)),
      list: authed.input(dto(ProjectInput)).query(({ ctx, input }) => queues.list(ctx.actor, input.projectId)),
      get: authed.input(dto(AnnotationQueueIdInput)).query(({ ctx, input }) => queues.get(ctx.actor, input.projectId, input.queueId)),
      update: authed.input(dto(AnnotationQueueUpdateInput)).mutation(({ ctx, input }) => queues.update(ctx.actor, input)),
      archive: authed
        .input(dto(AnnotationQueueArchiveInput))
        .mutation(({ ctx, input }) => queues.archive(ctx.actor, input.projectId, input.queueId, input.archived ?? true)),
      addItems: authed.input(dto(AnnotationQueueAddItemsInput)).mutation(({ ctx, input }) => queues.addItems(ctx.actor, input)),
      // Runs the trace list's query over up to ANNOTATION_QUEUE_LIMITS.itemsPerRequest traces: counted as a heavy read.
      addFromFilter: heavy
        .input(dto(AnnotationQueueAddFromFilterInput))
        .mutation(({ ctx, input }) => queues.addFromFilter(ctx.actor, input)),
      items: authed.input(dto(AnnotationQueueItemsInput)).query(({ ctx, input }) => queues.items(ctx.actor, input)),
      next: authed.input(dto(AnnotationQueueNextInput)).mutation(({ ctx, input }) => queues.next(ctx.actor, input)),
      complete: authed
        .input(dto(AnnotationQueueItemInput))
        .mutation(({ ctx, input }) => queues.complete(ctx.actor, input.projectId, input.itemId)),
      skip: authed.input(dto(AnnotationQueueItemInput)).mutation(({ ctx, input }) => queues.skip(ctx.actor, input.projectId, input.itemId)),
      progress: authed
        .input(dto(AnnotationQueueIdInput))
        .query(({ ctx, input }) => queues.progress(ctx.actor, input.projectId, input.queueId)),
    }),
  };
}
