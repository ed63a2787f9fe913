import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type JsonObject, ScorePageQuery, SpanPageQuery, TRACE_READ_LIMITS, TraceReadQuery, readPageQuery } from '@app/domain';
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

  /** The trace with a page of spans and of scores (CONTRACT "Traces", TRACE_READ_LIMITS); `spansLimit`, `spansCursor` page the spans. */
  @Get(':id')
  async get(
    @Principal() principal: ApiKeyPrincipal,
    @Param('id') id: string,
    @Query() query: TraceReadQueryDto,
    @Query() raw: JsonObject,
    @Headers(MIN_SEQ_HEADER) minSeqHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const page = readPageQuery(TraceReadQuery, raw);
    await this.awaitVisible(query.minSeq ?? minSeqHeader, reply);
    return this.traces.get(principal.projectId, id, { limit: page.spansLimit, cursor: page.spansCursor, cursorField: 'spansCursor', bytes: TRACE_READ_LIMITS.rest });
  }

  /** A page of the trace's spans: `{data, meta: {nextCursor}}` as the trace list, `limit` and `cursor` as there. */
  @Get(':id/spans')
  async spans(
    @Principal() principal: ApiKeyPrincipal,
    @Param('id') id: string,
    @Query() query: TraceReadQueryDto,
    @Query() raw: JsonObject,
    @Headers(MIN_SEQ_HEADER) minSeqHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const page = readPageQuery(SpanPageQuery, raw);
    await this.awaitVisible(query.minSeq ?? minSeqHeader, reply);
    return this.traces.spans(principal.projectId, id, { ...page, cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rest });
  }

  /** One span whole, the fields a page cut included. */
  @Get(':id/spans/:spanId')
  async span(
    @Principal() principal: ApiKeyPrincipal,
    @Param('id') id: string,
    @Param('spanId') spanId: string,
    @Query() query: TraceReadQueryDto,
    @Headers(MIN_SEQ_HEADER) minSeqHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.awaitVisible(query.minSeq ?? minSeqHeader, reply);
    return this.traces.span(principal.projectId, id, spanId);
  }

  /** A page of the trace's scores, as the spans' pages. */
  @Get(':id/scores')
  async scores(
    @Principal() principal: ApiKeyPrincipal,
    @Param('id') id: string,
    @Query() query: TraceReadQueryDto,
    @Query() raw: JsonObject,
    @Headers(MIN_SEQ_HEADER) minSeqHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const page = readPageQuery(ScorePageQuery, raw);
    await this.awaitVisible(query.minSeq ?? minSeqHeader, reply);
    return this.traces.scores(principal.projectId, id, { ...page, cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rest });
  }

  private async awaitVisible(raw: string | undefined, reply: FastifyReply): Promise<void> {
    const visible = await this.visibility.waitFor(this.visibility.parseToken(raw));
    void reply.header(VISIBLE_SEQ_HEADER, visible);
  }
}
