import { DATASET_LIMITS } from '@app/domain/limits';
import { useQueries, useQuery } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import { keys } from './query-keys';

export type DatasetRun = Outputs['dataset']['runs']['data'][number];
export type RunResults = Outputs['dataset']['run'];
export type RunComparison = Outputs['dataset']['compare'];
export type RunItemResult = RunResults['items'][number];
export type RunAggregates = RunResults['aggregates'];

/** Numbered pages as the dataset reads take them (`limit` within DATASET_LIMITS.list). */
export interface PageQuery {
  page?: number;
  limit?: number;
}

export function useDatasets(projectId: string, page: PageQuery) {
  return useQuery({ queryKey: keys.datasets.list(projectId, page), queryFn: () => rpc.dataset.list.query({ projectId, ...page }) });
}

export function useDataset(projectId: string, name: string) {
  return useQuery({ queryKey: keys.datasets.one(projectId, name), queryFn: () => rpc.dataset.get.query({ projectId, name }) });
}

export function useDatasetItems(projectId: string, name: string, page: PageQuery) {
  return useQuery({
    queryKey: keys.datasets.items(projectId, name, page),
    queryFn: () => rpc.dataset.items.query({ projectId, name, ...page }),
  });
}

export function useDatasetRuns(projectId: string, name: string, page: PageQuery) {
  return useQuery({
    queryKey: keys.datasets.runs(projectId, name, page),
    queryFn: () => rpc.dataset.runs.query({ projectId, name, ...page }),
  });
}

/** Each run's aggregates (computed over all its items): the run read with a page of one item. */
export function useRunSummaries(projectId: string, name: string, runNames: string[]) {
  return useQueries({
    queries: runNames.map((runName) => ({
      queryKey: keys.datasets.run(projectId, name, runName, { limit: 1 }),
      queryFn: () => rpc.dataset.run.query({ projectId, name, runName, limit: 1 }),
    })),
  });
}

export function useRunComparison(projectId: string, name: string, runNames: string[]) {
  return useQuery({
    queryKey: keys.datasets.compare(projectId, name, runNames),
    queryFn: () => rpc.dataset.compare.query({ projectId, name, runNames }),
    enabled: runNames.length >= 2,
  });
}

/** Every item of a run, page after page of the largest size the server gives. */
export async function fetchAllRunItems(projectId: string, name: string, runName: string): Promise<RunItemResult[]> {
  const items: RunItemResult[] = [];
  for (let page = 1; ; page++) {
    const answer = await rpc.dataset.run.query({ projectId, name, runName, page, limit: DATASET_LIMITS.runItemsPage.max });
    items.push(...answer.items);
    if (page >= answer.meta.totalPages) return items;
  }
}
