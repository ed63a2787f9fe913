import type { DataSource } from 'typeorm';
import { type JsonValue, TELEMETRY_RANGES } from '@app/domain';

export interface TraceFilter {
  projectId: string;
  ids?: string[];
  name?: string;
  tags?: string[];
  userId?: string;
  sessionId?: string;
  environment?: string;
  fromTimestamp?: string;
  toTimestamp?: string;
  spanType?: string;
  model?: string;
  /** A score of this name (any name when absent) with a value within the bounds given. */
  score?: { name?: string; min?: number; max?: number };
  limit: number;
  /** Position after which the page starts: [timestamp as Postgres text, id]. */
  after?: [string, string];
}

export interface TraceRow {
  id: string;
  otel_trace_id: string | null;
  external_id: string | null;
  name: string | null;
  created_at: Date;
  timestamp: Date;
  timestamp_text: string;
  user_id: string | null;
  session_id: string | null;
  tags: string[] | null;
  metadata: JsonValue | null;
  environment: string | null;
  release: string | null;
  version: string | null;
  input: JsonValue | null;
  output: JsonValue | null;
  span_count: number;
  total_tokens: number | null;
  total_cost: number | null;
  latency_ms: number | null;
}

export interface SpanRow {
  id: string;
  trace_id: string;
  otel_span_id: string | null;
  external_id: string | null;
  parent_id: string | null;
  name: string | null;
  type: string | null;
  operation: string | null;
  model: string | null;
  model_parameters: JsonValue | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  cost: number | null;
  input: JsonValue | null;
  output: JsonValue | null;
  metadata: JsonValue | null;
  attributes: JsonValue | null;
  start_time: Date | null;
  end_time: Date | null;
  level: string | null;
  status_message: string | null;
}

export interface ScoreRow {
  id: string;
  external_id: string | null;
  trace_id: string | null;
  span_id: string | null;
  name: string | null;
  value: JsonValue;
  data_type: string | null;
  comment: string | null;
  metadata: JsonValue | null;
  source: string | null;
  timestamp: Date | null;
  created_at: Date;
}

// Aggregates are computed on read from the spans, so they can never drift from them. A cost
// beyond TELEMETRY_RANGES, stored before ingestion checked it, counts as unknown: two costs
// near the largest double overflowed the sum and made every page showing the trace fail.
// Token sums are bigint sums, exact as numeric and far inside float8.
export const TRACE_SELECT = `
  SELECT t.id, t.otel_trace_id, t.external_id, t.name, t.created_at, t."timestamp", t."timestamp"::text AS timestamp_text,
         t.user_id, t.session_id, t.tags, t.metadata, t.environment, t.release, t.version, t.input, t.output,
         coalesce(a.span_count, 0) AS span_count, a.total_tokens, a.total_cost, a.latency_ms
    FROM traces t
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS span_count,
             sum(coalesce(s.total_tokens, s.prompt_tokens + s.completion_tokens, s.prompt_tokens, s.completion_tokens))::float8 AS total_tokens,
             round((sum(s.cost) FILTER (WHERE s.cost <= ${TELEMETRY_RANGES.spanCost.max}))::numeric, 12)::float8 AS total_cost,
             (extract(epoch FROM max(coalesce(s.end_time, s.start_time)) - min(s.start_time)) * 1000)::float8 AS latency_ms
        FROM spans s
       WHERE s.project_id = t.project_id AND s.trace_id = t.id
    ) a ON true`;

/** A score's value as a number: numeric as is, boolean as 1 or 0, categorical null (never within a bound). */
export const SCORE_NUMBER = `(CASE jsonb_typeof(c.value) WHEN 'number' THEN (c.value #>> '{}')::float8 WHEN 'boolean' THEN (c.value #>> '{}')::boolean::int::float8 END)`;

/** A trace's scores of one name and source, summed up for a list row. */
export interface ScoreSummaryRow {
  trace_id: string;
  name: string | null;
  source: string | null;
  count: number;
  /** The mean of the numeric and boolean (1/0) values; null when all are categorical. */
  mean: number | null;
}

/** Read-side queries of the trace read model; every query is scoped to one project. */
export class TraceQueries {
  constructor(private readonly db: DataSource) {}

  async list(f: TraceFilter): Promise<TraceRow[]> {
    const where = ['t.project_id = $1'];
    const params: unknown[] = [f.projectId];
    const add = (sql: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (f.ids) add((p) => `t.id = ANY(${p}::uuid[])`, f.ids);
    if (f.name !== undefined) add((p) => `t.name = ${p}`, f.name);
    if (f.tags?.length) add((p) => `t.tags @> ${p}::text[]`, f.tags);
    if (f.userId !== undefined) add((p) => `t.user_id = ${p}`, f.userId);
    if (f.sessionId !== undefined) add((p) => `t.session_id = ${p}`, f.sessionId);
    if (f.environment !== undefined) add((p) => `t.environment = ${p}`, f.environment);
    if (f.fromTimestamp) add((p) => `t."timestamp" >= ${p}::timestamptz`, f.fromTimestamp);
    if (f.toTimestamp) add((p) => `t."timestamp" <= ${p}::timestamptz`, f.toTimestamp);
    if (f.spanType !== undefined) {
      add((p) => `EXISTS (SELECT 1 FROM spans s WHERE s.project_id = t.project_id AND s.trace_id = t.id AND s.type = ${p})`, f.spanType);
    }
    if (f.model !== undefined) {
      add((p) => `EXISTS (SELECT 1 FROM spans s WHERE s.project_id = t.project_id AND s.trace_id = t.id AND s.model = ${p})`, f.model);
    }
    if (f.score) {
      const conditions = ['c.project_id = t.project_id', 'c.trace_id = t.id'];
      const bound = (sql: (p: string) => string, value: unknown) => {
        params.push(value);
        conditions.push(sql(`$${params.length}`));
      };
      if (f.score.name !== undefined) bound((p) => `c.name = ${p}`, f.score.name);
      if (f.score.min !== undefined) bound((p) => `${SCORE_NUMBER} >= ${p}::float8`, f.score.min);
      if (f.score.max !== undefined) bound((p) => `${SCORE_NUMBER} <= ${p}::float8`, f.score.max);
      where.push(`EXISTS (SELECT 1 FROM scores c WHERE ${conditions.join(' AND ')})`);
    }
    if (f.after) {
      params.push(f.after[0], f.after[1]);
      where.push(`(t."timestamp", t.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(f.limit);
    return this.db.query(
      `${TRACE_SELECT} WHERE ${where.join(' AND ')} ORDER BY t."timestamp" DESC, t.id DESC LIMIT $${params.length}`,
      params,
    );
  }

  /** The trace of the first of `ids` the project has: candidates in order of preference (`traceIdCandidates`). */
  async findOne(projectId: string, ids: string[]): Promise<TraceRow | null> {
    const rows: TraceRow[] = await this.db.query(
      `${TRACE_SELECT} WHERE t.project_id = $1 AND t.id = ANY($2::uuid[]) ORDER BY array_position($2::uuid[], t.id) LIMIT 1`,
      [projectId, ids],
    );
    return rows[0] ?? null;
  }

  /** `attributes` whole: the row leaves out the input and output copies (migration SpanAttributeCopies). */
  spansOf(projectId: string, traceId: string): Promise<SpanRow[]> {
    return this.db.query(
      `SELECT id, trace_id, otel_span_id, external_id, parent_id, name, type, operation, model, model_parameters, prompt_tokens,
              completion_tokens, total_tokens, cost, input, output, metadata,
              spanlog_span_attributes(attributes, input_attribute, output_attribute, input, output) AS attributes, start_time, end_time, level, status_message
         FROM spans WHERE project_id = $1 AND trace_id = $2
        ORDER BY start_time NULLS LAST, id`,
      [projectId, traceId],
    );
  }

  scoresOf(projectId: string, traceId: string): Promise<ScoreRow[]> {
    return this.db.query(
      `SELECT id, external_id, trace_id, span_id, name, value, data_type, comment, metadata, source, "timestamp", created_at
         FROM scores WHERE project_id = $1 AND trace_id = $2
        ORDER BY "timestamp" NULLS LAST, id`,
      [projectId, traceId],
    );
  }

  /** Each listed trace's scores grouped by name and source, for a page of the trace list. */
  scoreSummaries(projectId: string, traceIds: string[]): Promise<ScoreSummaryRow[]> {
    return this.db.query(
      `SELECT c.trace_id, c.name, c.source, count(*)::int AS count, avg(${SCORE_NUMBER}) AS mean
         FROM scores c WHERE c.project_id = $1 AND c.trace_id = ANY($2::uuid[])
        GROUP BY c.trace_id, c.name, c.source
        ORDER BY c.name, c.source`,
      [projectId, traceIds],
    );
  }
}
