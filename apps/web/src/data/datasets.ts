import { type ImportLine, type ImportLineError, itemRequests } from '@app/domain/datasets/dataset-import';
import { DATASET_LIMITS } from '@app/domain/limits';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { v4 as uuidv4 } from 'uuid';
import { type Outputs, rpc } from '../rpc';
import { keys } from './query-keys';

export type DatasetRun = Outputs['dataset']['runs']['data'][number];
export type RunResults = Outputs['dataset']['run'];
export type RunComparison = Outputs['dataset']['compare'];
export type RunItemResult = RunResults['items'][number];
export type RunAggregates = RunResults['aggregates'];
export type DatasetItem = Outputs['dataset']['items']['data'][number];

/** An item as the dashboard writes it: the fields `dataset.upsertItems` takes. */
export interface ItemFields {
  id?: string;
  input?: unknown;
  expectedOutput?: unknown;
  metadata?: unknown;
  sourceTraceId?: string;
  sourceSpanId?: string;
  status?: 'ACTIVE' | 'ARCHIVED';
}

/** Numbered pages as the dataset reads take them (`limit` within DATASET_LIMITS.list). */
export interface PageQuery {
  page?: number;
  limit?: number;
}

/** `enabled` false: not read (a form that may not need the list). */
export function useDatasets(projectId: string, page: PageQuery, enabled = true) {
  return useQuery({
    queryKey: keys.datasets.list(projectId, page),
    queryFn: () => rpc.dataset.list.query({ projectId, ...page }),
    enabled,
  });
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

export function useCreateDataset(projectId: string) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (fields: { name: string; description?: string }) => rpc.dataset.create.mutate({ projectId, ...fields }),
    onSuccess: () => void queries.invalidateQueries({ queryKey: keys.datasets.all(projectId) }),
  });
}

/** Adds or changes items of a dataset, archives or restores one; every read of the dataset is refreshed after. */
export function useDatasetItemActions(projectId: string) {
  const queries = useQueryClient();
  const refresh = (datasetName: string) => void queries.invalidateQueries({ queryKey: keys.datasets.one(projectId, datasetName) });
  const upsert = useMutation({
    mutationFn: ({ datasetName, items }: { datasetName: string; items: ItemFields[] }) =>
      rpc.dataset.upsertItems.mutate({ projectId, datasetName, items }),
    onSuccess: (_, { datasetName }) => refresh(datasetName),
  });
  const archive = useMutation({
    mutationFn: ({ datasetName, itemId, archived }: { datasetName: string; itemId: string; archived: boolean }) =>
      rpc.dataset.archiveItem.mutate({ projectId, datasetName, itemId, archived }),
    onSuccess: (_, { datasetName }) => refresh(datasetName),
  });
  return { upsert, archive, refresh };
}

/**
 * A file's lines with an id on every item: one given here to an item without, so that
 * importing the same read again (after a failed request) stores nothing twice. `uuid`, not
 * crypto.randomUUID, which a dashboard served over plain HTTP does not have.
 */
export function withIds(lines: ImportLine[]): ImportLine[] {
  return lines.map((l) => ({ ...l, item: { ...l.item, id: typeof l.item.id === 'string' ? l.item.id : uuidv4() } }));
}

/**
 * Imports a file's items all or nothing: every item is checked first (`dataset.checkItems`,
 * the push's own rules), and only when no line is at fault are they sent, in requests the API
 * takes (itemRequests).
 */
export async function importItems(
  projectId: string,
  datasetName: string,
  lines: ImportLine[],
): Promise<{ errors: ImportLineError[]; imported: number }> {
  const items = lines.map((l) => l.item);
  const errors: ImportLineError[] = [];
  let offset = 0;
  for (const request of itemRequests(items)) {
    const { problems } = await rpc.dataset.checkItems.mutate({ projectId, datasetName, items: request });
    errors.push(...problems.map((p) => ({ line: lines[offset + p.index].line, message: p.message })));
    offset += request.length;
  }
  if (errors.length) return { errors, imported: 0 };
  let imported = 0;
  for (const request of itemRequests(items))
    imported += (await rpc.dataset.upsertItems.mutate({ projectId, datasetName, items: request })).accepted;
  return { errors: [], imported };
}
