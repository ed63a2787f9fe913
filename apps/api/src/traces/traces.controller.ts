import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type JsonObject, ScorePageQuery, SpanPageQuery, TRACE_READ_LIMITS, TraceReadQuery, readPageQuery } from '@app/domain';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { VisibilityService } from '../consistency/visibility.service';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { MIN_SEQ_HEADER, ReadAfter } from './read-after';
import { TraceExportService } from './trace-export.service';
import { TraceExportQueryDto, TraceQueryDto } from './trace-query.dto';
import { TracesService } from './traces.service';

/** The REST pages of a trace: their own cursor parameter and the REST byte budget. */
const restPage = { cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rest } as const;

@Controller('api/v1/traces')
@ApiKeyRoute()
export class TracesController {
  constructor(
    private readonly traces: TracesService,
    private readonly visibility: VisibilityService,
    private readonly exports: TraceExportService,
  ) {}

  @Get()
  async list(
    @Principal() principal: ApiKeyPrincipal,
    @Query() query: TraceQueryDto,
    @Headers(MIN_SEQ_HEADER) minSeqHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.visibility.awaitRead(query.minSeq ?? minSeqHeader, reply);
    return this.traces.list(principal.projectId, { ...query, tags: query.tags?.split(',') });
  }

  /**
   * Every matching trace as JSONL or CSV (docs/reading.md "Exports"), streamed: a filter error
   * is a 400 as on the list, before anything is sent.
   */
  @Get('export')
  export(
    @Principal() { projectId }: ApiKeyPrincipal,
    @Query() query: TraceExportQueryDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.exports.send(reply, projectId, query, req.id);
  }

  /** The trace with a page of spans and of scores (CONTRACT "Traces", TRACE_READ_LIMITS); `spansLimit`, `spansCursor` page the spans. */
  @Get(':id')
  get(@Principal() { projectId }: ApiKeyPrincipal, @Param('id') id: string, @Query() query: JsonObject, @ReadAfter() after: ReadAfter) {
    return this.read(TraceReadQuery, query, after, (page) =>
      this.traces.get(projectId, id, {
        limit: page.spansLimit,
        cursor: page.spansCursor,
        cursorField: 'spansCursor',
        bytes: TRACE_READ_LIMITS.rest,
      }),
    );
  }

  /** A page of the trace's spans: `{data, meta: {nextCursor}}` as the trace list, `limit` and `cursor` as there. */
  @Get(':id/spans')
  spans(@Principal() { projectId }: ApiKeyPrincipal, @Param('id') id: string, @Query() query: JsonObject, @ReadAfter() after: ReadAfter) {
    return this.read(SpanPageQuery, query, after, (page) => this.traces.spans(projectId, id, { ...page, ...restPage }));
  }

  /** One span whole, the fields a page cut included. */
  @Get(':id/spans/:spanId')
  async span(
    @Principal() { projectId }: ApiKeyPrincipal,
    @Param('id') id: string,
    @Param('spanId') spanId: string,
    @ReadAfter() after: ReadAfter,
  ) {
    await this.visibility.awaitRead(after.minSeq, after.reply);
    return this.traces.span(projectId, id, spanId);
  }

  /** A page of the trace's scores, as the spans' pages. */
  @Get(':id/scores')
  scores(@Principal() { projectId }: ApiKeyPrincipal, @Param('id') id: string, @Query() query: JsonObject, @ReadAfter() after: ReadAfter) {
    return this.read(ScorePageQuery, query, after, (page) => this.traces.scores(projectId, id, { ...page, ...restPage }));
  }

  /** Reads the page parameters first, so a refused one is answered without waiting for minSeq. */
  private async read<Q extends object, R>(
    rules: new () => Q,
    query: JsonObject,
    after: ReadAfter,
    answer: (page: Q) => Promise<R>,
  ): Promise<R> {
    const page = readPageQuery(rules, query);
    await this.visibility.awaitRead(after.minSeq, after.reply);
    return answer(page);
  }
}
