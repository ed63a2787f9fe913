import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LangfuseModelsPage, ModelPath } from '@app/domain';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { REVALIDATE_ON_USE, ifNoneMatchNames } from '../http/entity-tag';
import { readInput } from '../http/client-input';
import { SEQ_HEADER } from '../ingestion/seq-header';
import { ModelsService } from '../models/models.service';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { IngestService } from '../ingestion/ingest.service';
import { LangfuseIngestionService } from './langfuse-ingestion.service';
import { LangfusePromptsService } from './langfuse-prompts.service';
import { LangfuseScoreConfigsService } from './langfuse-score-configs.service';

/**
 * Langfuse's SDKs, unchanged, given Spanlog's address as their `baseUrl` and a Spanlog API
 * key as their secret key (Basic auth, `ApiKeyGuard`): their OTLP export is our OTLP
 * endpoint, their batch ingestion our native batch answered Langfuse's way, their prompt
 * fetch our prompt templates, their models API the project's price definitions, and their
 * score configs ours.
 */
@Controller('api/public')
@ApiKeyRoute()
export class LangfuseController {
  constructor(
    private readonly ingest: IngestService,
    private readonly ingestion: LangfuseIngestionService,
    private readonly prompts: LangfusePromptsService,
    private readonly models: ModelsService,
    private readonly scoreConfigs: LangfuseScoreConfigsService,
  ) {}

  @Get('models')
  listModels(@Principal() principal: ApiKeyPrincipal, @Query() query: Record<string, unknown>) {
    const { page = 1, limit = 50 } = readInput(LangfuseModelsPage, query);
    return this.models.langfuseList(principal, page, limit);
  }

  @Post('models')
  @HttpCode(200)
  createModel(@Principal() principal: ApiKeyPrincipal, @Body() body: unknown) {
    return this.models.langfuseCreate(principal, body);
  }

  @Get('models/:id')
  getModel(@Principal() principal: ApiKeyPrincipal, @Param() { id }: ModelPath) {
    return this.models.langfuseGet(principal, id);
  }

  @Delete('models/:id')
  @HttpCode(200)
  deleteModel(@Principal() principal: ApiKeyPrincipal, @Param() { id }: ModelPath) {
    return this.models.langfuseDelete(principal, id);
  }

  @Get('score-configs')
  listScoreConfigs(@Principal() principal: ApiKeyPrincipal, @Query() query: Record<string, unknown>) {
    return this.scoreConfigs.page(principal, query);
  }

  @Post('score-configs')
  @HttpCode(200)
  createScoreConfig(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest) {
    return this.scoreConfigs.create(principal, req.ip, req.body);
  }

  @Get('score-configs/:id')
  async getScoreConfig(@Principal() principal: ApiKeyPrincipal, @Param('id') id: string, @Res() reply: FastifyReply) {
    const answer = await this.scoreConfigs.get(principal, id);
    return 'found' in answer ? reply.send(answer.found) : reply.code(404).send(answer.missing);
  }

  @Post('otel/v1/traces')
  @HttpCode(200)
  async ingestTraces(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const result = await this.ingest.ingestOtlp(principal, req.id, req.rawBody, req.body);
    void reply.header(SEQ_HEADER, result.seqToken);
    return result.body;
  }

  @Post('ingestion')
  @HttpCode(207)
  async ingestBatch(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const result = await this.ingestion.ingest(principal, req.id, req.rawBody, req.body);
    if (result.seqToken !== null) void reply.header(SEQ_HEADER, result.seqToken);
    return result.body;
  }

  /**
   * The SDK sends the name through encodeURIComponent, so a `/` in it arrives as `%2F` and
   * the router decodes it into the one parameter. The reply is sent here, since 304 and 404
   * are statuses the handler chooses.
   */
  @Get('v2/prompts/:name')
  async getPrompt(
    @Principal() principal: ApiKeyPrincipal,
    @Param('name') name: string,
    @Query() query: Record<string, unknown>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    const answer = await this.prompts.get(principal.projectId, name, query);
    switch (answer.kind) {
      case 'missing':
        return reply.code(404).send(answer.body);
      case 'found':
        void reply.headers({ ETag: answer.etag, 'Cache-Control': REVALIDATE_ON_USE });
        return ifNoneMatchNames(ifNoneMatch, answer.etag) ? reply.code(304).send() : reply.send(answer.prompt);
    }
  }
}
