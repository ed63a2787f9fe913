import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { VisibilityService } from '../consistency/visibility.service';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { TraceQueryDto, TraceReadQueryDto } from './trace-query.dto';
import { TracesService } from './traces.service';

export const MIN_SEQ_HEADER = 'spanlog-min-seq';
export const VISIBLE_SEQ_HEADER = 'Spanlog-Visible-Seq';

@Controller('api/v1/traces')
@ApiKeyRoute()
export class TracesController {
  constructor(
    private readonly traces: TracesService,
    private readonly visibility: VisibilityService,
  ) {}

  @Get()
  async list(
    @Principal() principal: ApiKeyPrincipal,
    @Query() query: TraceQueryDto,
    @Headers(MIN_SEQ_HEADER) minSeqHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.awaitVisible(query.minSeq ?? minSeqHeader, reply);
    return this.traces.list(principal.projectId, { ...query, tags: query.tags?.split(',') });
  }

  @Get(':id')
  async get(
    @Principal() principal: ApiKeyPrincipal,
    @Param('id') id: string,
    @Query() query: TraceReadQueryDto,
    @Headers(MIN_SEQ_HEADER) minSeqHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.awaitVisible(query.minSeq ?? minSeqHeader, reply);
    return this.traces.get(principal.projectId, id);
  }

  private async awaitVisible(raw: string | undefined, reply: FastifyReply): Promise<void> {
    const visible = await this.visibility.waitFor(this.visibility.parseToken(raw));
    void reply.header(VISIBLE_SEQ_HEADER, visible);
  }
}
