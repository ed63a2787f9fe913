import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  DatasetItemPath,
  DatasetPath,
  DomainError,
  LangfuseDatasetRunPath,
  LangfuseDatasetRunsPath,
  LangfuseItemListQuery,
  PAYLOAD_LIMITS,
  PageQuery,
  toLangfuseDataset,
  toLangfuseDatasetItem,
  toLangfuseDatasetRun,
  toLangfuseDatasetRunItem,
  validateLangfuseDatasetItem,
  validateRunItemBody,
} from '@app/domain';
import { type ApiKeyPrincipal, TenancyRepository } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { DatasetsService, keyWriter, pageRequest } from '../datasets/datasets.service';
import { assertBodyWithin } from '../http/body-limit';
import { SEQ_HEADER } from '../ingestion/seq-header';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';

/**
 * Langfuse's dataset and experiment routes over our datasets, in Langfuse's shapes, so that
 * `langfuse.dataset.get(name)` and `dataset.runExperiment(…)` of `@langfuse/client` run
 * against Spanlog unchanged: the task's traces come over the OTLP route, the run items here,
 * the evaluators' scores over `/api/public/ingestion`.
 */
@Controller('api/public')
@ApiKeyRoute()
export class LangfuseDatasetsController {
  constructor(
    private readonly datasets: DatasetsService,
    private readonly tenancy: TenancyRepository,
  ) {}

  @Post('v2/datasets')
  @HttpCode(200)
  async createDataset(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest) {
    return toLangfuseDataset(await this.datasets.save(principal, req.ip, req.rawBody, req.body), principal.projectId);
  }

  @Get('v2/datasets')
  async listDatasets(@Principal() { projectId }: ApiKeyPrincipal, @Query() query: PageQuery) {
    const page = await this.datasets.list(projectId, pageRequest(query));
    return { ...page, data: page.data.map((d) => toLangfuseDataset(d, projectId)) };
  }

  @Get('v2/datasets/:name')
  async getDataset(@Principal() { projectId }: ApiKeyPrincipal, @Param() { name }: DatasetPath) {
    return toLangfuseDataset(await this.datasets.get(projectId, name), projectId);
  }

  /** Creates or updates one item (upserted on its id) of the dataset its body names. */
  @Post('dataset-items')
  @HttpCode(200)
  async createItem(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest) {
    assertBodyWithin(req.rawBody, PAYLOAD_LIMITS.datasetItems);
    const { datasetName, item } = validateLangfuseDatasetItem(req.body);
    const dataset = await this.datasets.get(principal.projectId, datasetName);
    const [stored] = await this.datasets.storeItems(keyWriter(principal, req.ip), dataset, [item]);
    return toLangfuseDatasetItem(stored);
  }

  /** A page of a dataset's items (Langfuse also lists by source trace; we ask for the dataset), as of `version` when given. */
  @Get('dataset-items')
  async listItems(@Principal() { projectId }: ApiKeyPrincipal, @Query() query: LangfuseItemListQuery) {
    const page = await this.datasets.items(projectId, query.datasetName, query.version ?? null, pageRequest(query));
    return { ...page, data: page.data.map(toLangfuseDatasetItem) };
  }

  @Get('dataset-items/:id')
  async getItem(@Principal() { projectId }: ApiKeyPrincipal, @Param() { id }: DatasetItemPath) {
    return toLangfuseDatasetItem(await this.datasets.item(projectId, id));
  }

  /** Links an item to the trace a run produced for it; the answer's `datasetRunId` is the run's, made by its first item. */
  @Post('dataset-run-items')
  @HttpCode(200)
  async createRunItem(
    @Principal() principal: ApiKeyPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    assertBodyWithin(req.rawBody, PAYLOAD_LIMITS.default);
    const { runItem, seqToken } = await this.datasets.linkRunItem(principal, req.id, validateRunItemBody(req.body));
    void reply.header(SEQ_HEADER, seqToken);
    return toLangfuseDatasetRunItem(runItem);
  }

  @Get('datasets/:datasetName/runs')
  async listRuns(
    @Principal() { projectId }: ApiKeyPrincipal,
    @Param() { datasetName }: LangfuseDatasetRunsPath,
    @Query() query: PageQuery,
  ) {
    const page = await this.datasets.runs(projectId, datasetName, pageRequest(query));
    return { ...page, data: page.data.map(toLangfuseDatasetRun) };
  }

  @Get('datasets/:datasetName/runs/:runName')
  async getRun(@Principal() { projectId }: ApiKeyPrincipal, @Param() { datasetName, runName }: LangfuseDatasetRunPath) {
    const run = await this.datasets.run(projectId, datasetName, runName);
    const items = await this.datasets.runItems(projectId, run);
    return { ...toLangfuseDatasetRun(run), datasetRunItems: items.map(toLangfuseDatasetRunItem) };
  }

  /** The key's project: Langfuse's clients read its id to build links (`/project/{id}/traces/{traceId}`), which the dashboard opens. */
  @Get('projects')
  async projects(@Principal() { projectId, orgId }: ApiKeyPrincipal) {
    const [project, org] = await Promise.all([this.tenancy.project(projectId), this.tenancy.org(orgId)]);
    if (!project || !org) throw new DomainError('NOT_FOUND', "the API key's project no longer exists");
    return { data: [{ id: project.id, name: project.name, organization: { id: org.id, name: org.name }, metadata: {} }] };
  }
}
