import { Injectable } from '@nestjs/common';
import pLimit from 'p-limit';
import {
  EXPORT_LIMITS,
  FILTER_VALUE_LIMITS,
  type FilterValueField,
  type FilterValuesQuery,
  NULLABLE_TIME_ID_CURSOR,
  TIME_ID_CURSOR,
  TRACE_LIST_LIMITS,
  TRACE_QUERY_LIMIT,
  TRACE_READ_LIMITS,
  boundedPage,
  decodeCursor,
  encodeCursor,
  keysetPage,
  normalizeSpanType,
  notFound,
  spanIdCandidates,
  toIso,
  traceIdCandidates,
} from '@app/domain';
import { type RowPosition, type SizedKeyRow, type TraceFilter, TraceQueries, type TraceRow, type TraceValueColumn } from '@app/persistence';
import type { TraceFilterFields, TraceFilters } from './trace-query.dto';
import { toScoreResponse, toScoreSummaries, toSpanPageResponse, toSpanResponse, toTraceResponse } from './trace.mapper';

/** The byte bounds of the transport's pages: TRACE_READ_LIMITS.rest or .rpc. */
export type PageBytes = (typeof TRACE_READ_LIMITS)['rest' | 'rpc'];

/** Which page of a trace's spans or scores: at most `limit` rows after `cursor`; `cursorField` names the parameter in errors. */
export interface PageRequest {
  limit?: number;
  cursor?: string;
  cursorField: string;
  bytes: PageBytes;
}

/** The keys of the page within its bounds (LIMIT in Postgres, bytes measured there), and the cursor after it. */
function pageOf(candidates: SizedKeyRow[], limit: number, { pageBytes }: PageBytes) {
  const { rows, hasMore } = boundedPage(candidates, { limit, budgetBytes: pageBytes });
  const last = rows[rows.length - 1];
  return { ids: rows.map((r) => r.id), nextCursor: hasMore && last ? encodeCursor([last.time_text, last.id]) : null };
}

/** The list's filters as REST and RPC both hand them over: tags already split. */
export type TraceListQuery = TraceFilterFields & { tags?: string[] };

const optional = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** The list's filters as the trace query takes them (empty text is no filter, ids and span types read as stored); no page position. */
function filterOf(projectId: string, q: TraceFilters & { tags?: string[] }): Omit<TraceFilter, 'limit'> {
  return {
    projectId,
    ids: optional(q.id) ? traceIdCandidates(q.id as string) : undefined,
    name: optional(q.name),
    tags: q.tags?.map((t) => t.trim()).filter(Boolean),
    userId: optional(q.userId),
    sessionId: optional(q.sessionId),
    environment: optional(q.environment),
    fromTimestamp: q.fromTimestamp === undefined ? undefined : toIso(q.fromTimestamp),
    toTimestamp: q.toTimestamp === undefined ? undefined : toIso(q.toTimestamp),
    spanType: optional(q.spanType) && normalizeSpanType(q.spanType as string),
    model: optional(q.model),
    operation: optional(q.operation),
    score:
      optional(q.scoreName) !== undefined || q.minScore !== undefined || q.maxScore !== undefined
        ? { name: optional(q.scoreName), min: q.minScore, max: q.maxScore }
        : undefined,
  };
}

/** Where each picker's values come from: a trace column (newest traces) or a span stats dimension. */
const VALUE_SOURCES: Record<FilterValueField, { traces: TraceValueColumn } | { stats: 'span_type' | 'model' | 'operation' }> = {
  name: { traces: 'name' },
  tags: { traces: 'tags' },
  userId: { traces: 'user_id' },
  sessionId: { traces: 'session_id' },
  environment: { traces: 'environment' },
  spanType: { stats: 'span_type' },
  model: { stats: 'model' },
  operation: { stats: 'operation' },
};
const DAY_MS = 86_400_000;

@Injectable()
export class TracesService {
  /** Every trace read takes a turn here (TRACE_READ_LIMITS.concurrentReads): eight reads at once once stalled /health behind the pool. */
  private readonly turn = pLimit(TRACE_READ_LIMITS.concurrentReads);

  constructor(private readonly queries: TraceQueries) {}

  async list(projectId: string, q: TraceListQuery) {
    const limit = q.limit ?? TRACE_QUERY_LIMIT.default;
    const rows = await this.queries.list({
      ...filterOf(projectId, q),
      after: optional(q.cursor) ? decodeCursor<[string, string]>(q.cursor as string, TIME_ID_CURSOR) : undefined,
      limit: limit + 1,
      fieldBytes: TRACE_LIST_LIMITS.fieldBytes,
    });
    const { data: page, nextCursor } = keysetPage(rows, limit, (row) => [row.timestamp_text, row.id]);
    const scores = page.length
      ? toScoreSummaries(
          await this.queries.scoreSummaries(
            projectId,
            page.map((r) => r.id),
            TRACE_LIST_LIMITS.scoreGroups,
          ),
        )
      : new Map();
    return {
      data: page.map((row) => ({ ...toTraceResponse(row), scores: scores.get(row.id) ?? [] })),
      meta: { nextCursor },
    };
  }

  /** The ids of the newest traces the list's filters match, at most `max` (the list's page position is ignored). */
  async matchingIds(projectId: string, q: TraceListQuery, max: number): Promise<string[]> {
    const rows = await this.turn(() => this.queries.list({ ...filterOf(projectId, q), limit: max, fieldBytes: 0 }));
    return rows.map((r) => r.id);
  }

  /** The known values of one filter (`trace.filterValues`), at most `limit`; `now` bounds the stats read. */
  async filterValues(projectId: string, { field, contains, limit }: FilterValuesQuery, now: number): Promise<{ data: string[] }> {
    const source = VALUE_SOURCES[field];
    const data =
      'traces' in source
        ? await this.queries.recentTraceValues(projectId, source.traces, contains, FILTER_VALUE_LIMITS.recentTraces, limit)
        : await this.queries.statsSpanValues(projectId, source.stats, contains, toIso(now - FILTER_VALUE_LIMITS.statsDays * DAY_MS), limit);
    return { data };
  }

  /**
   * A trace with its first page of spans (or the page after `spans.cursor`) and of scores
   * (CONTRACT "Traces"; TRACE_READ_LIMITS): what fits the bounds is exactly the whole trace
   * as it always was, and `nextSpansCursor`/`nextScoresCursor` say whether more follow.
   */
  get(projectId: string, id: string, spans: PageRequest) {
    return this.turn(async () => {
      const row = await this.trace(projectId, id);
      const spanPage = await this.spanPage(projectId, row.id, spans);
      const scorePage = await this.scorePage(projectId, row.id, { cursorField: 'scoresCursor', bytes: spans.bytes });
      const scoreCount = await this.queries.scoreCount(projectId, row.id);
      return this.withPages(row, spanPage, scorePage, scoreCount);
    });
  }

  private withPages(
    row: TraceRow,
    spanPage: Awaited<ReturnType<TracesService['spanPage']>>,
    scorePage: Awaited<ReturnType<TracesService['scorePage']>>,
    scoreCount: number,
  ) {
    const scores = scorePage.data;
    // The page's scores at trace level; those about a span on that span too.
    const bySpan = new Map<string | null, typeof scores>();
    for (const c of scores) {
      const list = bySpan.get(c.spanId);
      if (list) list.push(c);
      else bySpan.set(c.spanId, [c]);
    }
    return {
      ...toTraceResponse(row),
      scoreCount,
      spans: spanPage.data.map((s) => ({ ...s, scores: bySpan.get(s.id) ?? [] })),
      scores,
      nextSpansCursor: spanPage.meta.nextCursor,
      nextScoresCursor: scorePage.meta.nextCursor,
    };
  }

  /** A page of a trace's spans by start time then id, large fields cut (`fieldBytes`). */
  spans(projectId: string, traceId: string, page: PageRequest) {
    return this.turn(async () => this.spanPage(projectId, (await this.trace(projectId, traceId)).id, page));
  }

  /** One span of a trace, whole, whatever its size (a page may have cut its fields). */
  span(projectId: string, traceId: string, spanId: string) {
    return this.turn(async () => {
      const row = await this.trace(projectId, traceId);
      const span = await this.queries.spanOf(projectId, row.id, spanIdCandidates(spanId, row.otel_trace_id));
      if (!span) throw notFound(`span ${spanId} not found in trace ${traceId}`);
      return toSpanResponse(span);
    });
  }

  /** A page of a trace's scores by time then id. */
  scores(projectId: string, traceId: string, page: PageRequest) {
    return this.turn(async () => this.scorePage(projectId, (await this.trace(projectId, traceId)).id, page));
  }

  /**
   * Every trace matching the list's filters, newest first, each whole: keyset pages of
   * EXPORT_LIMITS.tracesPerQuery (a trace whose fields a page cut is read again alone), each
   * query in its turn, the next one only when the consumer asks for more, none once it stops.
   */
  async *exportTraces(projectId: string, q: TraceFilters & { tags?: string[] }) {
    const filter = filterOf(projectId, q);
    let after: [string, string] | undefined;
    for (;;) {
      const rows = await this.turn(() =>
        this.queries.list({ ...filter, after, limit: EXPORT_LIMITS.tracesPerQuery, fieldBytes: TRACE_LIST_LIMITS.fieldBytes }),
      );
      for (const row of rows) {
        const whole = Object.keys(row.truncated).length ? await this.turn(() => this.queries.findOne(projectId, [row.id])) : row;
        // A trace deleted since its page was read is left out.
        if (whole) yield toTraceResponse(whole);
      }
      const last = rows[rows.length - 1];
      if (rows.length < EXPORT_LIMITS.tracesPerQuery || !last) return;
      after = [last.timestamp_text, last.id];
    }
  }

  /** A trace's spans whole, by start time, read a REST page at a time (a span a page cut is read again alone). */
  async *exportSpans(projectId: string, traceId: string) {
    let cursor: string | undefined;
    do {
      const page = await this.turn(() =>
        this.spanPage(projectId, traceId, { cursor, cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rest }),
      );
      for (const span of page.data) {
        if (!span.truncated) yield span;
        else {
          const whole = await this.turn(() => this.queries.spanOf(projectId, traceId, [span.id]));
          if (whole) yield toSpanResponse(whole);
        }
      }
      cursor = page.meta.nextCursor ?? undefined;
    } while (cursor);
  }

  /** A trace's scores by time, a REST page at a time. */
  async *exportScores(projectId: string, traceId: string) {
    let cursor: string | undefined;
    do {
      const page = await this.turn(() =>
        this.scorePage(projectId, traceId, { cursor, cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rest }),
      );
      yield* page.data;
      cursor = page.meta.nextCursor ?? undefined;
    } while (cursor);
  }

  private async trace(projectId: string, id: string): Promise<TraceRow> {
    const row = await this.queries.findOne(projectId, traceIdCandidates(id));
    if (!row) throw notFound(`trace ${id} not found in this project`);
    return row;
  }

  private async spanPage(
    projectId: string,
    traceId: string,
    { limit = TRACE_READ_LIMITS.spans.default, cursor, cursorField, bytes }: PageRequest,
  ) {
    const after = optional(cursor) ? decodeCursor<RowPosition>(cursor as string, NULLABLE_TIME_ID_CURSOR, cursorField) : undefined;
    const { fieldBytes } = bytes;
    const { ids, nextCursor } = pageOf(
      await this.queries.spanPageKeys(projectId, traceId, after, limit + 1, fieldBytes, TRACE_READ_LIMITS.rowOverheadBytes),
      limit,
      bytes,
    );
    const rows = ids.length ? await this.queries.spansByIds(projectId, traceId, ids, fieldBytes) : [];
    return { data: rows.map(toSpanPageResponse), meta: { nextCursor } };
  }

  private async scorePage(
    projectId: string,
    traceId: string,
    { limit = TRACE_READ_LIMITS.scores.default, cursor, cursorField, bytes }: PageRequest,
  ) {
    const after = optional(cursor) ? decodeCursor<RowPosition>(cursor as string, NULLABLE_TIME_ID_CURSOR, cursorField) : undefined;
    const { ids, nextCursor } = pageOf(
      await this.queries.scorePageKeys(projectId, traceId, after, limit + 1, TRACE_READ_LIMITS.rowOverheadBytes),
      limit,
      bytes,
    );
    const rows = ids.length ? await this.queries.scoresByIds(projectId, traceId, ids) : [];
    return { data: rows.map(toScoreResponse), meta: { nextCursor } };
  }
}
