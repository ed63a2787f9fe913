import { Injectable } from '@nestjs/common';
import {
  DATASET_LIMITS,
  type Dataset,
  type DatasetItem,
  type DatasetRun,
  type DatasetRunItem,
  PAYLOAD_LIMITS,
  type RunAggregates,
  type RunComparisonRow,
  type RunItemInput,
  type RunItemResult,
  aggregateRun,
  compareRuns,
  notFound,
  runItemIdOf,
  validateDatasetInput,
  validateDatasetItemsRequest,
} from '@app/domain';
import { type ApiKeyPrincipal, DatasetStore, type PageRequest, RunResultsQuery } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';
import { assertBodyWithin } from '../http/body-limit';
import { IngestService } from '../ingestion/ingest.service';

/** A page of a list with Langfuse's numbered-page meta. */
export interface DatasetPage<T> {
  data: T[];
  meta: { page: number; limit: number; totalItems: number; totalPages: number };
}

/** A run's results: the run, its aggregates and a page of its items. */
export interface RunResults extends DatasetRun {
  aggregates: RunAggregates;
  items: RunItemResult[];
  meta: DatasetPage<never>['meta'];
}

/** Two or more runs of a dataset side by side, per dataset item. */
export interface RunComparison {
  runs: (DatasetRun & { aggregates: RunAggregates })[];
  items: RunComparisonRow[];
}

export const pageOf = <T>(data: T[], { page, limit }: PageRequest, totalItems: number): DatasetPage<T> => ({
  data,
  meta: { page, limit, totalItems, totalPages: Math.ceil(totalItems / limit) },
});

export const pageRequest = (query: { page?: number; limit?: number }, fallback: number = DATASET_LIMITS.list.default): PageRequest => ({
  page: query.page ?? 1,
  limit: query.limit ?? fallback,
});

/** Rows of a run read per query while its aggregates are computed over all of them. */
const AGGREGATE_PAGE = DATASET_LIMITS.runItemsPage.max;

/**
 * A project's datasets, items and runs (issue 31), for the REST routes of an API key and
 * Langfuse's, and the dashboard's reads. Datasets and items are configuration, stored in
 * Postgres before the answer and audited; run items are telemetry, appended to INGEST.
 */
@Injectable()
export class DatasetsService {
  constructor(
    private readonly store: DatasetStore,
    private readonly results: RunResultsQuery,
    private readonly ingest: IngestService,
    private readonly audit: AuditPublisher,
  ) {}

  async save(principal: ApiKeyPrincipal, ip: string, raw: Buffer | undefined, body: unknown): Promise<Dataset> {
    assertBodyWithin(raw, PAYLOAD_LIMITS.default);
    const dataset = await this.store.upsert(principal.projectId, validateDatasetInput(body));
    await this.record(principal, ip, 'dataset.saved', dataset.name, { datasetId: dataset.id });
    return dataset;
  }

  async list(projectId: string, page: PageRequest): Promise<DatasetPage<Dataset>> {
    const { data, totalItems } = await this.store.list(projectId, page);
    return pageOf(data, page, totalItems);
  }

  /** The dataset of that name, or 404 naming it. */
  async get(projectId: string, name: string): Promise<Dataset> {
    const dataset = await this.store.find(projectId, name);
    if (!dataset) throw notFound(`dataset "${name}" not found in this project`);
    return dataset;
  }

  /** Items of one request into the dataset named by the route: one, or `{ items }` of up to 1,000; idempotent by id. */
  async pushItems(principal: ApiKeyPrincipal, ip: string, raw: Buffer | undefined, name: string, body: unknown): Promise<DatasetItem[]> {
    assertBodyWithin(raw, PAYLOAD_LIMITS.datasetItems);
    const items = validateDatasetItemsRequest(body);
    const dataset = await this.get(principal.projectId, name);
    return this.storeItems(principal, ip, dataset, items);
  }

  async storeItems(principal: ApiKeyPrincipal, ip: string, dataset: Dataset, items: Parameters<DatasetStore['upsertItems']>[2]) {
    const stored = await this.store.upsertItems(principal.projectId, dataset, items);
    await this.record(principal, ip, 'dataset.items_pushed', dataset.name, { datasetId: dataset.id, items: stored.length });
    return stored;
  }

  /** A page of the dataset's items, as they were at `version` (an ISO time) when given. */
  async items(projectId: string, name: string, version: string | null, page: PageRequest): Promise<DatasetPage<DatasetItem>> {
    const dataset = await this.get(projectId, name);
    const { data, totalItems } = await this.store.items(projectId, dataset.id, version, page);
    return pageOf(data, page, totalItems);
  }

  async item(projectId: string, id: string): Promise<DatasetItem> {
    const item = await this.store.item(projectId, id);
    if (!item) throw notFound(`dataset item "${id}" not found in this project`);
    return item;
  }

  async runs(projectId: string, name: string, page: PageRequest): Promise<DatasetPage<DatasetRun>> {
    const dataset = await this.get(projectId, name);
    const { data, totalItems } = await this.store.runs(projectId, dataset.id, page);
    return pageOf(data, page, totalItems);
  }

  /** The run of that name of the dataset, or 404 naming both. */
  async run(projectId: string, name: string, runName: string): Promise<DatasetRun> {
    const dataset = await this.get(projectId, name);
    const run = await this.store.run(projectId, dataset.id, runName);
    if (!run) throw notFound(`dataset "${name}" has no run "${runName}" in this project`);
    return run;
  }

  /** The run, its aggregates over every item, and a page of its items' results. */
  async runResults(projectId: string, name: string, runName: string, page: PageRequest): Promise<RunResults> {
    const run = await this.run(projectId, name, runName);
    const shown = await this.results.page(projectId, run.id, page);
    const all = shown.totalItems <= shown.data.length ? shown.data : await this.allResults(projectId, run.id);
    return { ...run, aggregates: aggregateRun(all), items: shown.data, meta: pageOf([], page, shown.totalItems).meta };
  }

  /** Two or more runs of the dataset side by side: each run's aggregates, and per item each run's result. */
  async compare(projectId: string, name: string, runNames: string[]): Promise<RunComparison> {
    const runs = await Promise.all(runNames.map((runName) => this.run(projectId, name, runName)));
    const results = await Promise.all(runs.map((run) => this.allResults(projectId, run.id)));
    return { runs: runs.map((run, i) => ({ ...run, aggregates: aggregateRun(results[i]) })), items: compareRuns(results) };
  }

  /** The run's item links as Langfuse lists them. */
  async runItems(projectId: string, run: DatasetRun): Promise<DatasetRunItem[]> {
    const links = await this.results.links(projectId, run.id);
    return links.map((link) => ({ ...link, datasetRunId: run.id, datasetRunName: run.name }));
  }

  /**
   * Links a dataset item of the key's project to the trace (and span) a run produced for it,
   * creating or updating the run by name. An item of another project is a 404 like an item
   * that does not exist, so nothing about it leaks. Answered once the link is on INGEST.
   */
  async linkRunItem(
    principal: ApiKeyPrincipal,
    requestId: string,
    input: RunItemInput,
  ): Promise<{ runItem: DatasetRunItem; seqToken: string }> {
    const item = await this.item(principal.projectId, input.datasetItemId);
    const run = await this.store.upsertRun(principal.projectId, { id: item.datasetId, name: item.datasetName }, input);
    const id = runItemIdOf(run.id, item.id);
    const seqToken = await this.ingest.ingestRunItems(principal, requestId, {
      runItems: [{ id, runId: run.id, datasetItemId: item.id, traceId: input.traceId, spanId: input.spanId }],
    });
    const runItem: DatasetRunItem = {
      id,
      datasetRunId: run.id,
      datasetRunName: run.name,
      datasetItemId: item.id,
      traceId: input.traceId,
      spanId: input.spanId ?? null,
      createdAt: new Date().toISOString(),
    };
    return { runItem, seqToken };
  }

  private async allResults(projectId: string, runId: string): Promise<RunItemResult[]> {
    const all: RunItemResult[] = [];
    for (let page = 1; ; page++) {
      const { data, totalItems } = await this.results.page(projectId, runId, { page, limit: AGGREGATE_PAGE });
      all.push(...data);
      if (all.length >= totalItems || !data.length) return all;
    }
  }

  private record(
    principal: ApiKeyPrincipal,
    ip: string,
    action: 'dataset.saved' | 'dataset.items_pushed',
    target: string,
    details: object,
  ) {
    return this.audit.record({
      orgId: principal.orgId,
      actorUserId: null,
      actorApiKeyId: principal.apiKeyId,
      target,
      ip,
      action,
      details: { projectId: principal.projectId, ...details },
    });
  }
}
