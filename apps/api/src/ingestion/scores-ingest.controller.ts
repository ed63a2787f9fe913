import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { IngestService } from './ingest.service';
import { SEQ_HEADER } from './seq-header';

/** SPEC 4.3, CONTRACT "Scores": 201 `{accepted, ids}` with the read-your-writes token. */
@Controller('api/v1/scores')
@ApiKeyRoute()
export class ScoresIngestController {
  constructor(private readonly ingest: IngestService) {}

  @Post()
  @HttpCode(201)
  async createScores(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const result = await this.ingest.ingestScores(principal, req.id, req.rawBody, req.body);
    void reply.header(SEQ_HEADER, result.seqToken);
    return result.body;
  }
}
