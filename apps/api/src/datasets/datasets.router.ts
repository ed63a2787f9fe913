import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import {
  DatasetCompareInput,
  DatasetInput,
  DatasetItemArchiveInput,
  DatasetItemsInput,
  DatasetItemsWriteInput,
  DatasetListInput,
  DatasetPageInput,
  DatasetRunInput,
  ProjectInput,
} from '../rpc/rpc.dto';
import type { DatasetEditsService } from './dataset-edits.service';
import type { DatasetReadsService } from './dataset-reads.service';

/**
 * The dashboard's datasets and experiments: lists, items as of a time, a run's results, runs
 * compared per item; and a member's changes of datasets and items.
 */
export function datasetRouters(datasets: DatasetReadsService, edits: DatasetEditsService, { authed, heavy }: RpcProcedures) {
  return {
    dataset: router({
      // The dataset's fields past the projectId go on as sent for validateDatasetInput.
      create: authed
        .input(dto(ProjectInput))
        .mutation(({ ctx, input: { projectId, ...fields } }) => edits.create(ctx.actor, projectId, fields)),
      // `items` goes on as sent for validateDatasetItemsRequest; mount-rpc.ts lets this call's body (and checkItems') be as large as REST's.
      upsertItems: authed
        .input(dto(DatasetItemsWriteInput))
        .mutation(({ ctx, input }) => edits.upsertItems(ctx.actor, input.projectId, input.datasetName, { items: input.items })),
      // Stores nothing: an import lists every line at fault before it sends any.
      checkItems: authed
        .input(dto(DatasetItemsWriteInput))
        .mutation(({ ctx, input }) => edits.checkItems(ctx.actor, input.projectId, input.datasetName, input.items)),
      archiveItem: authed
        .input(dto(DatasetItemArchiveInput))
        .mutation(({ ctx, input }) => edits.archiveItem(ctx.actor, input.projectId, input.datasetName, input.itemId, input.archived)),
      list: heavy.input(dto(DatasetListInput)).query(({ ctx, input }) => datasets.list(ctx.actor, input.projectId, input)),
      get: heavy.input(dto(DatasetInput)).query(({ ctx, input }) => datasets.get(ctx.actor, input.projectId, input.name)),
      items: heavy.input(dto(DatasetItemsInput)).query(({ ctx, input }) => datasets.items(ctx.actor, input.projectId, input.name, input)),
      runs: heavy.input(dto(DatasetPageInput)).query(({ ctx, input }) => datasets.runs(ctx.actor, input.projectId, input.name, input)),
      run: heavy
        .input(dto(DatasetRunInput))
        .query(({ ctx, input }) => datasets.run(ctx.actor, input.projectId, input.name, input.runName, input)),
      compare: heavy
        .input(dto(DatasetCompareInput))
        .query(({ ctx, input }) => datasets.compare(ctx.actor, input.projectId, input.name, input.runNames)),
    }),
  };
}
