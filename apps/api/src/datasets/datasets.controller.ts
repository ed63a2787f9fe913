import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DATASET_LIMITS, DatasetPath, DatasetRunPath, ItemListQuery, PageQuery, RunResultsQuery } from '@app/domain';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { VisibilityService } from '../consistency/visibility.service';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { ReadAfter } from '../traces/read-after';
import { DatasetsService, pageRequest } from './datasets.service';

/**
 * Datasets and experiments of the API key's project (issue 31), counted in the key's
 * rate-limit bucket. A name in the path is decoded by the router, so `a%2Fb` names `a/b`.
 */
@Controller('api/v1/datasets')
@ApiKeyRoute()
export class DatasetsController {
  constructor(
    private readonly datasets: DatasetsService,
    private readonly visibility: VisibilityService,
  ) {}

  @Get()
  list(@Principal() { projectId }: ApiKeyPrincipal, @Query() query: PageQuery) {
    return this.datasets.list(projectId, pageRequest(query));
  }

  /** Creates the dataset, or updates the description and metadata of the one of that name. */
  @Post()
  @HttpCode(201)
  save(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest) {
    return this.datasets.save(principal, req.ip, req.rawBody, req.body);
  }

  @Get(':name')
  get(@Principal() { projectId }: ApiKeyPrincipal, @Param() { name }: DatasetPath) {
    return this.datasets.get(projectId, name);
  }

  /** A page of the items, as they were at `version` (an ISO time) when given. */
  @Get(':name/items')
  items(@Principal() { projectId }: ApiKeyPrincipal, @Param() { name }: DatasetPath, @Query() query: ItemListQuery) {
    return this.datasets.items(projectId, name, query.version ?? null, pageRequest(query));
  }

  /** One item or `{ items: [...] }` of up to 1,000, idempotent by id: 201 with the ids stored. */
  @Post(':name/items')
  @HttpCode(201)
  async push(@Principal() principal: ApiKeyPrincipal, @Param() { name }: DatasetPath, @Req() req: FastifyRequest) {
    const items = await this.datasets.pushItems(principal, req.ip, req.rawBody, name, req.body);
    return { accepted: items.length, ids: items.map((i) => i.id) };
  }

  @Get(':name/runs')
  runs(@Principal() { projectId }: ApiKeyPrincipal, @Param() { name }: DatasetPath, @Query() query: PageQuery) {
    return this.datasets.runs(projectId, name, pageRequest(query));
  }

  /**
   * The run's results: per item its trace's output, latency, tokens, cost and scores; the run's
   * aggregates. `minSeq` (or `Spanlog-Min-Seq`) waits for what was ingested up to that token.
   */
  @Get(':name/runs/:runName')
  async run(
    @Principal() { projectId }: ApiKeyPrincipal,
    @Param() { name, runName }: DatasetRunPath,
    @Query() query: RunResultsQuery,
    @ReadAfter() after: ReadAfter,
  ) {
    await this.visibility.awaitRead(after.minSeq, after.reply);
    return this.datasets.runResults(projectId, name, runName, pageRequest(query, DATASET_LIMITS.runItemsPage.default));
  }
}
