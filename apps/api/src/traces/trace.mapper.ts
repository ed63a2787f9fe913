import { BUILT_IN_PRICES, definitionIdOfCostSource } from '@app/domain';
import type { ScoreRow, ScoreSummaryRow, SpanPageRow, SpanRow, TraceRow } from '@app/persistence';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

const BUILT_IN_BY_ID = new Map(BUILT_IN_PRICES.map((d) => [d.id, d]));

/**
 * The price definition a computed cost names (`price:<id>`), built in or the project's own, as
 * the span page shows it: its id and the model it prices.
 */
function costDefinitionOf(row: SpanRow): { id: string; modelName: string } | null {
  const id = definitionIdOfCostSource(row.cost_source);
  if (id === null) return null;
  const modelName = row.cost_definition_model ?? BUILT_IN_BY_ID.get(id)?.modelName;
  return modelName === undefined ? null : { id, modelName };
}

/** A trace as the API shows it (CONTRACT "Traces"). */
export function toTraceResponse(row: TraceRow) {
  return {
    id: row.id,
    otelTraceId: row.otel_trace_id,
    externalId: row.external_id,
    name: row.name,
    createdAt: iso(row.created_at),
    timestamp: iso(row.timestamp),
    userId: row.user_id,
    sessionId: row.session_id,
    tags: row.tags ?? [],
    metadata: row.metadata ?? {},
    environment: row.environment,
    release: row.release,
    version: row.version,
    input: row.input,
    output: row.output,
    spanCount: row.span_count,
    totalTokens: row.total_tokens,
    totalCost: row.total_cost,
    latencyMs: row.latency_ms,
    // Only on a list page, only where it cut something (TRACE_LIST_LIMITS).
    ...(Object.keys(row.truncated).length ? { truncated: row.truncated } : {}),
  };
}

export function toSpanResponse(row: SpanRow) {
  return {
    id: row.id,
    traceId: row.trace_id,
    otelSpanId: row.otel_span_id,
    externalId: row.external_id,
    parentId: row.parent_id,
    name: row.name,
    type: row.type,
    operation: row.operation,
    model: row.model,
    modelParameters: row.model_parameters,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    totalTokens: row.total_tokens,
    usageDetails: row.usage_details ?? {},
    cost: row.cost,
    costSource: row.cost_source,
    costDetails: row.cost_details ?? {},
    costDefinition: costDefinitionOf(row),
    unpricedUsage: row.unpriced_usage ?? [],
    input: row.input,
    output: row.output,
    metadata: row.metadata ?? {},
    attributes: row.attributes ?? {},
    startTime: iso(row.start_time),
    endTime: iso(row.end_time),
    level: row.level,
    statusMessage: row.status_message,
  };
}

/**
 * A span of a page: as toSpanResponse, but a field the page cut (TRACE_READ_LIMITS' `fieldBytes`)
 * is null and named, with its size in bytes, in `truncated`, which only such spans carry.
 */
export function toSpanPageResponse(row: SpanPageRow): PageSpan {
  const span: PageSpan = toSpanResponse(row);
  const cut = Object.keys(row.truncated);
  return cut.length ? { ...span, ...Object.fromEntries(cut.map((field) => [field, null])), truncated: row.truncated } : span;
}

type SpanResponse = ReturnType<typeof toSpanResponse>;
/** A span as a page shows it: metadata and attributes are null too when cut. */
export type PageSpan = Omit<SpanResponse, 'metadata' | 'attributes'> & {
  metadata: SpanResponse['metadata'] | null;
  attributes: SpanResponse['attributes'] | null;
  truncated?: Record<string, number>;
};

export function toScoreResponse(row: ScoreRow) {
  return {
    id: row.id,
    externalId: row.external_id,
    traceId: row.trace_id,
    spanId: row.span_id,
    name: row.name,
    value: row.value,
    dataType: row.data_type,
    comment: row.comment,
    metadata: row.metadata ?? {},
    source: row.source,
    timestamp: iso(row.timestamp),
    createdAt: iso(row.created_at),
    // Scores given by hand (issue 30) name who gave them; API and evaluator scores have none.
    author: row.author_user_id === null ? null : { userId: row.author_user_id, email: row.author_email },
  };
}

/** A list page's score summaries, by trace id, each `{name, source, value (the mean), count}`. */
export function toScoreSummaries(rows: ScoreSummaryRow[]) {
  const byTrace = new Map<string, { name: string | null; source: string | null; value: number | null; count: number }[]>();
  for (const row of rows) {
    const list = byTrace.get(row.trace_id) ?? [];
    list.push({ name: row.name, source: row.source, value: row.mean, count: row.count });
    byTrace.set(row.trace_id, list);
  }
  return byTrace;
}
