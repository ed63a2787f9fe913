import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Principal } from '../auth/api-key.guard';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import type { ApiKeyPrincipal } from '@app/persistence';
import { IngestService } from './ingest.service';
import { SEQ_HEADER } from './seq-header';

@Controller('api/v1/traces')
@ApiKeyRoute()
export class TracesIngestController {
  constructor(private readonly ingest: IngestService) {}

  @Post()
  @HttpCode(201)
  async ingestBatch(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const result = await this.ingest.ingestNativeBatch(principal, req.id, req.rawBody, req.body);
    void reply.header(SEQ_HEADER, result.seqToken);
    return result.body;
  }
}
