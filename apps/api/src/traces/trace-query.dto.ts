import {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportInclude,
  Optional,
  Required,
  TRACE_QUERY_LIMIT,
  anyJson,
  anyText,
  decimalInteger,
  exportIncludes,
  numeric,
  oneOf,
  storableText,
  storableTextList,
  text,
  timestampMs,
  uuid,
} from '@app/domain';

export const traceId = text(1, 256);

/** Query of GET /api/v1/traces/:id. */
export class TraceReadQueryDto {
  @Optional(anyText) minSeq?: string;
}

/**
 * The trace list's filters (CONTRACT "Traces") but tags, which REST and RPC spell differently.
 * Every value compared in Postgres is text it can store: a NUL would otherwise fail the
 * statement (BAD_INPUTS 5).
 */
export class TraceFilters {
  @Optional(traceId) id?: string;
  @Optional(storableText) name?: string;
  @Optional(storableText) userId?: string;
  @Optional(storableText) sessionId?: string;
  @Optional(storableText) environment?: string;
  /** Epoch milliseconds, from an ISO 8601 timestamp. */
  @Optional(timestampMs) fromTimestamp?: number;
  @Optional(timestampMs) toTimestamp?: number;
  @Optional(storableText) spanType?: string;
  @Optional(storableText) model?: string;
  /** Traces with a span of this operation (`chat`, `execute_tool`…), any case. */
  @Optional(storableText) operation?: string;
  /** Traces with a score of this name (any score when absent), whose value is within minScore–maxScore when given. */
  @Optional(storableText) scoreName?: string;
  /** Numeric scores compare by value, boolean ones as 1 and 0; categorical ones never match a bound. */
  @Optional(numeric) minScore?: number;
  @Optional(numeric) maxScore?: number;
}

/** The filters with a page: `limit` traces after `cursor`. */
export class TraceFilterFields extends TraceFilters {
  @Optional(decimalInteger(TRACE_QUERY_LIMIT)) limit?: number;

  @Optional(anyText) cursor?: string;
}

/** Query of GET /api/v1/traces. */
export class TraceQueryDto extends TraceFilterFields {
  @Optional(anyText) minSeq?: string;
  /** Comma-separated; every tag must match. */
  @Optional(storableText) tags?: string;
}

/**
 * Query of GET /api/v1/traces/export (docs/reading.md "Exports"): the list's filters, tags as
 * the list spells them, every matching trace rather than a page.
 */
export class TraceExportQueryDto extends TraceFilters {
  @Required(oneOf(EXPORT_FORMATS)) format: ExportFormat;
  /** Comma-separated: `spans`, `scores` or both. */
  @Optional(exportIncludes) include?: ExportInclude[];
  @Optional(storableText) tags?: string;
}

/** The path of a project's session route: its id. */
export class ProjectPathDto {
  @Required(uuid) projectId: string;
}

/** Input of RPC `trace.list`: the same filters, tags as a list (a tag may hold a comma). */
export class TraceListInput extends TraceFilterFields {
  @Required(uuid) projectId: string;
  @Optional(storableTextList) tags?: string[];
}

/** Input of RPC `trace.get`; its paging fields (`spansLimit`, `spansCursor`) are the domain's TraceReadQuery. */
export class TraceGetInput {
  @Required(uuid) projectId: string;
  @Required(traceId) id: string;
  /** Checked by the domain's TraceReadQuery (the REST parameters' rules). */
  @Optional(anyJson) spansLimit?: number;
  @Optional(anyJson) spansCursor?: string;
}

/** Input of RPC `trace.spans` and `trace.scores`; `limit` and `cursor` are the domain's SpanPageQuery/ScorePageQuery. */
export class TracePageInput {
  @Required(uuid) projectId: string;
  @Required(traceId) traceId: string;
  /** Checked by the domain's SpanPageQuery or ScorePageQuery. */
  @Optional(anyJson) limit?: number;
  @Optional(anyJson) cursor?: string;
}

/** Input of RPC `trace.span`. */
export class TraceSpanInput extends TracePageInput {
  @Required(traceId) spanId: string;
}
