import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { SEQ_HEADER } from '../ingestion/seq-header';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { IngestService } from '../ingestion/ingest.service';
import { LangfuseIngestionService } from './langfuse-ingestion.service';

/**
 * Langfuse's SDKs, unchanged, given Spanlog's address as their `baseUrl` and a Spanlog API
 * key as their secret key (Basic auth, `ApiKeyGuard`): their OTLP export is our OTLP
 * endpoint, and their batch ingestion our native batch answered Langfuse's way.
 */
@Controller('api/public')
@ApiKeyRoute()
export class LangfuseController {
  constructor(
    private readonly ingest: IngestService,
    private readonly ingestion: LangfuseIngestionService,
  ) {}

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
}
