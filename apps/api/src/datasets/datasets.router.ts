import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { DatasetCompareInput, DatasetInput, DatasetItemsInput, DatasetListInput, DatasetPageInput, DatasetRunInput } from '../rpc/rpc.dto';
import type { DatasetReadsService } from './dataset-reads.service';

/** The dashboard's reads of datasets and experiments: lists, items as of a time, a run's results, runs compared per item. */
export function datasetRouters(datasets: DatasetReadsService, { heavy }: RpcProcedures) {
  return {
    dataset: router({
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
