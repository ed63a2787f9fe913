import { Injectable } from '@nestjs/common';
import { TRACE_QUERY_LIMIT, notFound, toIso, traceIdCandidates } from '@app/domain';
import { TraceQueries } from '@app/persistence';
import { decodeCursor, encodeCursor } from './cursor';
import type { TraceFilterFields } from './trace-query.dto';
import { toScoreResponse, toScoreSummaries, toSpanResponse, toTraceResponse } from './trace.mapper';

/** The list's filters as REST and RPC both hand them over: tags already split. */
export type TraceListQuery = TraceFilterFields & { tags?: string[] };

const optional = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

@Injectable()
export class TracesService {
  constructor(private readonly queries: TraceQueries) {}

  async list(projectId: string, q: TraceListQuery) {
    const limit = q.limit ?? TRACE_QUERY_LIMIT.default;
    const tags = q.tags?.map((t) => t.trim()).filter(Boolean);
    const rows = await this.queries.list({
      projectId,
      ids: optional(q.id) ? traceIdCandidates(q.id as string) : undefined,
      name: optional(q.name),
      tags,
      userId: optional(q.userId),
      sessionId: optional(q.sessionId),
      environment: optional(q.environment),
      fromTimestamp: q.fromTimestamp === undefined ? undefined : toIso(q.fromTimestamp),
      toTimestamp: q.toTimestamp === undefined ? undefined : toIso(q.toTimestamp),
      spanType: optional(q.spanType),
      model: optional(q.model),
      score: optional(q.scoreName) !== undefined || q.minScore !== undefined || q.maxScore !== undefined ? { name: optional(q.scoreName), min: q.minScore, max: q.maxScore } : undefined,
      after: optional(q.cursor) ? decodeCursor(q.cursor as string) : undefined,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const scores = page.length ? toScoreSummaries(await this.queries.scoreSummaries(projectId, page.map((r) => r.id))) : new Map();
    return {
      data: page.map((row) => ({ ...toTraceResponse(row), scores: scores.get(row.id) ?? [] })),
      meta: { nextCursor: rows.length > limit && last ? encodeCursor([last.timestamp_text, last.id]) : null },
    };
  }

  async get(projectId: string, id: string) {
    const row = await this.queries.findOne(projectId, traceIdCandidates(id));
    if (!row) throw notFound(`trace ${id} not found in this project`);
    const [spans, scores] = await Promise.all([this.queries.spansOf(projectId, row.id), this.queries.scoresOf(projectId, row.id)]);
    const shown = scores.map(toScoreResponse);
    // Every score of the trace at trace level; those about a span on that span too.
    return { ...toTraceResponse(row), spans: spans.map((s) => ({ ...toSpanResponse(s), scores: shown.filter((c) => c.spanId === s.id) })), scores: shown };
  }
}
