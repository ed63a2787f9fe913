import { Controller, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { validationError } from '@app/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { IngestService } from './ingest.service';
import { SEQ_HEADER } from './seq-header';

/**
 * OTLP/HTTP with JSON (SPEC 4.2). `v1/traces` is where a Collector's otlphttp exporter and
 * `OTEL_EXPORTER_OTLP_ENDPOINT` land when given `/api/v1/otel` as the base (CONTRACT "OTLP").
 */
@Controller('api/v1/otel')
@ApiKeyRoute()
export class OtelIngestController {
  constructor(private readonly ingest: IngestService) {}

  @Post(['traces', 'v1/traces'])
  @HttpCode(200)
  async ingestTraces(
    @Principal() principal: ApiKeyPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('explain') explain?: string,
  ) {
    if (explain !== undefined && explain !== 'true' && explain !== 'false') throw validationError('explain: must be true or false');
    if (explain === 'true') return this.ingest.explainOtlp(req.rawBody, req.body);
    const result = await this.ingest.ingestOtlp(principal, req.id, req.rawBody, req.body);
    void reply.header(SEQ_HEADER, result.seqToken);
    return result.body;
  }

  /** OTLP/HTTP JSON logs: where instrumentations that send GenAI content as log records export it (issue 17). */
  @Post(['logs', 'v1/logs'])
  @HttpCode(200)
  async ingestLogs(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const result = await this.ingest.ingestOtlpLogs(principal, req.id, req.rawBody, req.body);
    void reply.header(SEQ_HEADER, result.seqToken);
    return result.body;
  }
}
