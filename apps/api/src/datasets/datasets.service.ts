import { Injectable } from '@nestjs/common';
import {
  type AuditAction,
  DATASET_LIMITS,
  type Dataset,
  type DatasetItem,
  type DatasetItemInput,
  type DatasetItemStatus,
  type DatasetRun,
  type DatasetRunItem,
  PAYLOAD_LIMITS,
  type RunAggregates,
  type RunComparisonRow,
  type RunItemInput,
  type RunItemResult,
  type RunScore,
  type RunScoreInput,
  DomainError,
  aggregateRun,
  compareRuns,
  datasetItemsProblems,
  notFound,
  runItemIdOf,
  validateDatasetInput,
  validateDatasetItemsRequest,
  validateRunScoreEvent,
} from '@app/domain';
import { type ApiKeyPrincipal, DatasetStore, type PageRequest, RunResultsQuery } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';
import { assertBodyWithin } from '../http/body-limit';
import { IngestService } from '../ingestion/ingest.service';

/** Who changes a project's datasets, as the audit names them: an API key, or a member signed in to the dashboard. */
export interface DatasetWriter {
  orgId: string;
  projectId: string;
  apiKeyId: string | null;
  userId: string | null;
  ip: string | null;
}

export const keyWriter = (principal: ApiKeyPrincipal, ip: string): DatasetWriter => ({
  orgId: principal.orgId,
  projectId: principal.projectId,
  apiKeyId: principal.apiKeyId,
  userId: null,
  ip,
});

/** A page of a list with Langfuse's numbered-page meta. */
export interface DatasetPage<T> {
  data: T[];
  meta: { page: number; limit: number; totalItems: number; totalPages: number };
}

/** A run's results: the run, its aggregates and a page of its items. */
export interface RunResults extends DatasetRun {
  aggregates: RunAggregates;
  /** The run's own scores (`datasetRunId`), one per name. */
  scores: RunScore[];
  items: RunItemResult[];
  meta: DatasetPage<never>['meta'];
}

/** Two or more runs of a dataset side by side, per dataset item. */
export interface RunComparison {
  runs: (DatasetRun & { aggregates: RunAggregates; scores: RunScore[] })[];
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
    return this.saveAs(keyWriter(principal, ip), body);
  }

  /** Creates or updates the dataset the body states, for whoever writes it (an API key or a member); audited. */
  async saveAs(writer: DatasetWriter, body: unknown): Promise<Dataset> {
    const dataset = await this.store.upsert(writer.projectId, validateDatasetInput(body));
    await this.record(writer, 'dataset.saved', dataset.name, { datasetId: dataset.id });
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
    return this.pushItemsAs(keyWriter(principal, ip), name, body);
  }

  /** As pushItems once the body's size is checked, for whoever writes them: the same limits, idempotency and audit. */
  async pushItemsAs(writer: DatasetWriter, name: string, body: unknown): Promise<DatasetItem[]> {
    const items = validateDatasetItemsRequest(body);
    const dataset = await this.get(writer.projectId, name);
    return this.storeItems(writer, dataset, items);
  }

  async storeItems(writer: DatasetWriter, dataset: Dataset, items: DatasetItemInput[]) {
    const stored = await this.store.upsertItems(writer.projectId, dataset, items);
    await this.record(writer, 'dataset.items_pushed', dataset.name, { datasetId: dataset.id, items: stored.length });
    return stored;
  }

  /** Each item's first fault, by index, with nothing stored; a 404 naming the dataset when it is not there. */
  async checkItems(projectId: string, name: string, items: unknown[]): Promise<{ problems: { index: number; message: string }[] }> {
    await this.get(projectId, name);
    return { problems: datasetItemsProblems(items) };
  }

  /**
   * Archives an item of the dataset (or restores it): a new version with the status changed
   * and its content kept, so reads of earlier times still show it as it was. An item of
   * another dataset is a 404 naming both.
   */
  async archiveItem(writer: DatasetWriter, name: string, itemId: string, archived: boolean): Promise<DatasetItem> {
    const dataset = await this.get(writer.projectId, name);
    const item = await this.store.item(writer.projectId, itemId);
    if (!item || item.datasetId !== dataset.id) throw notFound(`itemId: dataset "${name}" has no item "${itemId}"`);
    const { id, input, expectedOutput, metadata, sourceTraceId, sourceSpanId } = item;
    const status: DatasetItemStatus = archived ? 'ARCHIVED' : 'ACTIVE';
    const [stored] = await this.store.upsertItems(writer.projectId, dataset, [
      { id, input, expectedOutput, metadata, sourceTraceId, sourceSpanId, status },
    ]);
    await this.record(writer, archived ? 'dataset.item_archived' : 'dataset.item_restored', dataset.name, {
      datasetId: dataset.id,
      itemId,
    });
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
    const scores = (await this.store.runScores(projectId, [run.id])).get(run.id) ?? [];
    return { ...run, aggregates: aggregateRun(all), scores, items: shown.data, meta: pageOf([], page, shown.totalItems).meta };
  }

  /** Two or more runs of the dataset side by side: each run's aggregates, and per item each run's result. */
  async compare(projectId: string, name: string, runNames: string[]): Promise<RunComparison> {
    const runs = await Promise.all(runNames.map((runName) => this.run(projectId, name, runName)));
    const results = await Promise.all(runs.map((run) => this.allResults(projectId, run.id)));
    const scores = await this.store.runScores(
      projectId,
      runs.map((r) => r.id),
    );
    return {
      runs: runs.map((run, i) => ({ ...run, aggregates: aggregateRun(results[i]), scores: scores.get(run.id) ?? [] })),
      items: compareRuns(results),
    };
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

  /**
   * Scores of runs as a whole (Langfuse's `score-create` with `datasetRunId`), kept with their
   * runs, answered per event: stored, or refused with the reason (400 naming the field, 404 for
   * a run that is not one of the project's, without saying whether it exists elsewhere).
   */
  async saveRunScores(
    projectId: string,
    events: unknown[],
  ): Promise<({ ok: true } | { ok: false; status: number; code: string; message: string })[]> {
    const read = events.map((event) => {
      try {
        return validateRunScoreEvent(event);
      } catch (err) {
        if (err instanceof DomainError) return err;
        throw err;
      }
    });
    const valid = read.filter((r): r is RunScoreInput => !(r instanceof DomainError));
    const missing = valid.length ? await this.store.upsertRunScores(projectId, valid) : new Set<string>();
    return read.map((r) => {
      if (r instanceof DomainError) return { ok: false, status: 400, code: r.code, message: r.message };
      if (missing.has(r.runId))
        return {
          ok: false,
          status: 404,
          code: 'NOT_FOUND',
          message: `body.datasetRunId: dataset run "${r.runId}" not found in this project`,
        };
      return { ok: true };
    });
  }

  private async allResults(projectId: string, runId: string): Promise<RunItemResult[]> {
    const all: RunItemResult[] = [];
    for (let page = 1; ; page++) {
      const { data, totalItems } = await this.results.page(projectId, runId, { page, limit: AGGREGATE_PAGE });
      all.push(...data);
      if (all.length >= totalItems || !data.length) return all;
    }
  }

  private record(writer: DatasetWriter, action: Extract<AuditAction, `dataset.${string}`>, target: string, details: object) {
    return this.audit.record({
      orgId: writer.orgId,
      actorUserId: writer.userId,
      actorApiKeyId: writer.apiKeyId,
      target,
      ip: writer.ip,
      action,
      details: { projectId: writer.projectId, ...details },
    });
  }
}
