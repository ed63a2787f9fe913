import type { DataSource } from 'typeorm';
import { type JsonValue, TELEMETRY_RANGES } from '@app/domain';
import { type KeysetOrder, keyset } from '../keyset';

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
  /** A span with this operation, compared in any case. */
  operation?: string;
  /** A score of this name (any name when absent) with a value within the bounds given. */
  score?: { name?: string; min?: number; max?: number };
  limit: number;
  /** A trace's input, output or metadata larger than this is left out of the page (named in `truncated`); absent, nothing is. */
  fieldBytes?: number;
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
  /** Fields a list page left out for their size, with their size in bytes; empty on a single trace's read. */
  truncated: Record<string, number>;
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
  usage_details: Record<string, number> | null;
  cost: number | null;
  cost_source: string | null;
  /** The model a project's own price definition named in `cost_source` prices; null for a built-in, a client cost or a deleted definition. */
  cost_definition_model: string | null;
  cost_details: Record<string, number> | null;
  unpriced_usage: string[] | null;
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
  /** A score given by hand: its author. */
  author_user_id: string | null;
  author_email: string | null;
}

/** The trace fields a list page cuts above its field bound, with the name the API shows them under. */
const CUTTABLE_TRACE_FIELDS = ['input', 'output', 'metadata'] as const;

// Aggregates are computed on read from the spans, so they can never drift from them. A cost
// beyond TELEMETRY_RANGES, stored before ingestion checked it, counts as unknown: two costs
// near the largest double overflowed the sum and made every page showing the trace fail.
// Token sums are bigint sums, exact as numeric and far inside float8.
/**
 * The trace columns and their aggregates, of the traces `from` (aliased `t`); `cutAbove` (a parameter such as `$2`) makes every
 * field of CUTTABLE_TRACE_FIELDS larger than that many bytes null, named with its size in
 * `truncated` (a list page of 100 traces must not carry 100 inputs of 5 MB).
 */
export function traceSelect(cutAbove: string | null, from = 'traces t'): string {
  const field = (c: string) =>
    cutAbove ? `CASE WHEN octet_length(t.${c}::text) > ${cutAbove} THEN NULL ELSE t.${c} END AS ${c}` : `t.${c}`;
  const truncated = cutAbove
    ? `jsonb_strip_nulls(jsonb_build_object(${CUTTABLE_TRACE_FIELDS.map((c) => `'${c}', CASE WHEN octet_length(t.${c}::text) > ${cutAbove} THEN octet_length(t.${c}::text) END`).join(', ')}))`
    : `'{}'::jsonb`;
  return `
  SELECT t.id, t.otel_trace_id, t.external_id, t.name, t.created_at, t."timestamp", t."timestamp"::text AS timestamp_text,
         t.user_id, t.session_id, t.tags, ${field('metadata')}, t.environment, t.release, t.version, ${field('input')}, ${field('output')},
         ${truncated} AS truncated,
         coalesce(a.span_count, 0) AS span_count, a.total_tokens, a.total_cost, a.latency_ms
    FROM ${from}
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS span_count,
             sum(coalesce(s.total_tokens, s.prompt_tokens + s.completion_tokens, s.prompt_tokens, s.completion_tokens))::float8 AS total_tokens,
             round((sum(s.cost) FILTER (WHERE s.cost <= ${TELEMETRY_RANGES.spanCost.max}))::numeric, 12)::float8 AS total_cost,
             (extract(epoch FROM max(coalesce(s.end_time, s.start_time)) - min(s.start_time)) * 1000)::float8 AS latency_ms
        FROM spans s
       WHERE s.project_id = t.project_id AND s.trace_id = t.id
    ) a ON true`;
}

/** A row of a trace page, by its position and what its fields weigh as shown (fields over the cap count 0: they are left out). */
export interface SizedKeyRow {
  id: string;
  /** The ordering time as Postgres text, null when the row has none (sorted last). */
  time_text: string | null;
  bytes: number;
}

/** A span of a page: fields larger than the cap are null and named in `truncated` with their size in bytes. */
export interface SpanPageRow extends SpanRow {
  truncated: Record<string, number>;
}

/** Where a page of a trace's spans or scores starts: after this row (time as Postgres text, null sorted last; id). */
export type RowPosition = [string | null, string];

/**
 * The project's price definition a computed cost names (`price:<uuid>`; built-in ids are no
 * uuids), found by its primary key.
 */
const COST_DEFINITION_MODEL = `(SELECT md.model_name FROM model_definitions md
    WHERE md.id = CASE WHEN s.cost_source ~ '^price:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN substr(s.cost_source, 7)::uuid END
      AND md.project_id = s.project_id) AS cost_definition_model`;

/** The span fields a page never cuts, as selected. */
const FIXED_SPAN_COLUMNS = `s.id, s.trace_id, s.otel_span_id, s.external_id, s.parent_id, s.name, s.type, s.operation, s.model, s.prompt_tokens,
  s.completion_tokens, s.total_tokens, s.usage_details, s.cost, s.cost_source, ${COST_DEFINITION_MODEL}, s.cost_details, s.unpriced_usage,
  s.start_time, s.end_time, s.level`;

/**
 * The span fields a page may cut: column, the name the API shows it under, and its value as
 * read. `attributes` is read whole: the row leaves out the input and output copies (migration
 * SpanAttributeCopies), which `spanlog_span_attributes` puts back.
 */
const CUTTABLE_SPAN_FIELDS = [
  ['input', 'input', 's.input'],
  ['output', 'output', 's.output'],
  ['metadata', 'metadata', 's.metadata'],
  ['attributes', 'attributes', 'spanlog_span_attributes(s.attributes, s.input_attribute, s.output_attribute, s.input, s.output)'],
  ['model_parameters', 'modelParameters', 's.model_parameters'],
  ['status_message', 'statusMessage', 's.status_message'],
] as const;

const SPAN_COLUMNS = `${FIXED_SPAN_COLUMNS}, ${CUTTABLE_SPAN_FIELDS.map(([column, , value]) => `${value} AS ${column}`).join(', ')}`;

/** Each cuttable field's size in bytes (null when absent), computed once per row. */
const SPAN_FIELD_SIZES = `CROSS JOIN LATERAL (SELECT ${CUTTABLE_SPAN_FIELDS.map(([column, , value]) => `octet_length(${value}::text) AS ${column}`).join(', ')}) z`;

/** The trace list's order: newest first (`traces_project_timestamp_idx`). */
const TRACE_LIST_ORDER: KeysetOrder = {
  columns: [
    { sql: 't."timestamp"', type: 'timestamptz' },
    { sql: 't.id', type: 'uuid' },
  ],
  descending: true,
};
/** A trace's spans and scores: by time, null last, then id (the index on the trace's times serves it). */
const spanOrder = (time: string): KeysetOrder => ({
  columns: [
    { sql: time, type: 'timestamptz' },
    { sql: 'id', type: 'uuid' },
  ],
  nullsLast: true,
});
const SPAN_PAGE_ORDER = spanOrder('start_time');
const SCORE_PAGE_ORDER = spanOrder('"timestamp"');

/**
 * A score's value as a number: numeric as is, boolean as 1 or 0, categorical null (never within a
 * bound). Migration ScoreNumberStatistics keeps statistics of this very expression, which the
 * planner matches by its text: a change here needs new statistics there.
 */
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

/** The trace columns whose known values a filter picker offers. */
export type TraceValueColumn = 'name' | 'user_id' | 'session_id' | 'environment' | 'tags';

/** Characters of a lower-cased trace name in `traces_project_lower_name_idx` (a btree row is at most about 2.7 KB). */
const TRACE_NAME_INDEX_PREFIX = 200;

/** Read-side queries of the trace read model; every query is scoped to one project. */
export class TraceQueries {
  constructor(private readonly db: DataSource) {}

  async list(f: TraceFilter): Promise<TraceRow[]> {
    const where = ['t.project_id = $1'];
    const params: unknown[] = [f.projectId, f.fieldBytes ?? null];
    const add = (sql: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (f.ids) add((p) => `t.id = ANY(${p}::uuid[])`, f.ids);
    // Any case: a name is free text (docs/dashboard.md "Trace list filters").
    // The index holds the name's prefix only (migration TraceNameLowerIndex): it finds the rows, the whole name decides.
    if (f.name !== undefined)
      add(
        (p) =>
          `left(lower(t.name), ${TRACE_NAME_INDEX_PREFIX}) = left(lower(${p}), ${TRACE_NAME_INDEX_PREFIX}) AND lower(t.name) = lower(${p})`,
        f.name,
      );
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
    if (f.operation !== undefined) {
      add(
        (p) =>
          `EXISTS (SELECT 1 FROM spans s WHERE s.project_id = t.project_id AND s.trace_id = t.id AND lower(s.operation) = lower(${p}))`,
        f.operation,
      );
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
    const page = keyset(TRACE_LIST_ORDER, f.after, f.limit, params);
    // The page's traces first, their spans summed after: a plan that reads every match and sorts
    // (a filter whose matches the planner underestimates) then sums the spans of the page only,
    // not of every match (the score filter with bounds, warm: 27–34 → 15–19 ms at 100,000 traces).
    const pageRows = `(SELECT t.* FROM traces t WHERE ${where.join(' AND ')} AND ${page.after} ORDER BY ${page.orderBy} ${page.limit}) t`;
    return this.db.query(`${traceSelect('$2::int', pageRows)} ORDER BY ${page.orderBy}`, params);
  }

  /**
   * The known values of one trace column among the project's `recent` newest traces (the
   * timestamp index's first rows, so bounded at any size): newest use first, then most used.
   * `contains` is lower case, matched anywhere in the value.
   */
  async recentTraceValues(
    projectId: string,
    column: TraceValueColumn,
    contains: string | undefined,
    recent: number,
    limit: number,
  ): Promise<string[]> {
    const value = column === 'tags' ? 'unnest(r.v)' : 'r.v';
    const rows: { value: string }[] = await this.db.query(
      `SELECT x.value FROM (
         SELECT ${value} AS value, r.ts FROM (
           SELECT t.${column} AS v, t."timestamp" AS ts FROM traces t WHERE t.project_id = $1 ORDER BY t."timestamp" DESC, t.id DESC LIMIT $2
         ) r
       ) x
       WHERE x.value IS NOT NULL AND x.value <> '' AND ($3::text IS NULL OR strpos(lower(x.value), $3) > 0)
       GROUP BY x.value ORDER BY max(x.ts) DESC, count(*) DESC, x.value LIMIT $4`,
      [projectId, recent, contains ?? null, limit],
    );
    return rows.map((r) => r.value);
  }

  /** A span dimension's known values from the 5-minute span stats since `since` (ISO): newest bucket first, then most calls. */
  async statsSpanValues(
    projectId: string,
    column: 'span_type' | 'model' | 'operation',
    contains: string | undefined,
    since: string,
    limit: number,
  ): Promise<string[]> {
    const rows: { value: string }[] = await this.db.query(
      `SELECT ${column} AS value FROM span_stats_5m
        WHERE project_id = $1 AND bucket >= $2::timestamptz AND ${column} <> '' AND ($3::text IS NULL OR strpos(lower(${column}), $3) > 0)
        GROUP BY ${column} ORDER BY max(bucket) DESC, sum(calls) DESC, ${column} LIMIT $4`,
      [projectId, since, contains ?? null, limit],
    );
    return rows.map((r) => r.value);
  }

  /** The trace of the first of `ids` the project has: candidates in order of preference (`traceIdCandidates`). */
  async findOne(projectId: string, ids: string[]): Promise<TraceRow | null> {
    const rows: TraceRow[] = await this.db.query(
      `${traceSelect(null)} WHERE t.project_id = $1 AND t.id = ANY($2::uuid[]) ORDER BY array_position($2::uuid[], t.id) LIMIT 1`,
      [projectId, ids],
    );
    return rows[0] ?? null;
  }

  /** Every span of a trace, unbounded: only for tests of what the projection stored; the API pages with spanPageKeys. */
  spansOf(projectId: string, traceId: string): Promise<SpanRow[]> {
    return this.db.query(
      `SELECT ${SPAN_COLUMNS} FROM spans s WHERE s.project_id = $1 AND s.trace_id = $2 ORDER BY s.start_time NULLS LAST, s.id`,
      [projectId, traceId],
    );
  }

  /** Every score of a trace, unbounded: as spansOf. */
  scoresOf(projectId: string, traceId: string): Promise<ScoreRow[]> {
    return this.db.query(
      `SELECT id, external_id, trace_id, span_id, name, value, data_type, comment, metadata, source, "timestamp", created_at, author_user_id, author_email
         FROM scores WHERE project_id = $1 AND trace_id = $2
        ORDER BY "timestamp" NULLS LAST, id`,
      [projectId, traceId],
    );
  }

  /**
   * The next `take` spans of a trace after `after`, by start time then id, with what each
   * weighs: keys first (LIMIT in Postgres, through the index on the trace's start times), then
   * the sizes of those rows only.
   */
  spanPageKeys(
    projectId: string,
    traceId: string,
    after: RowPosition | undefined,
    take: number,
    fieldBytes: number,
    rowBytes: number,
  ): Promise<SizedKeyRow[]> {
    const params: unknown[] = [projectId, traceId, fieldBytes, rowBytes];
    const page = keyset(SPAN_PAGE_ORDER, after, take, params);
    const shown = CUTTABLE_SPAN_FIELDS.map(([column]) => `CASE WHEN z.${column} > $3 THEN 0 ELSE coalesce(z.${column}, 0) END`).join(' + ');
    return this.db.query(
      `SELECT s.id, s.start_time::text AS time_text, ($4 + coalesce(octet_length(s.name), 0) + ${shown})::float8 AS bytes
         FROM (SELECT id, start_time FROM spans WHERE project_id = $1 AND trace_id = $2 AND ${page.after}
                ORDER BY ${page.orderBy} ${page.limit}) k
         JOIN spans s ON s.project_id = $1 AND s.id = k.id
         ${SPAN_FIELD_SIZES}
        ORDER BY k.start_time NULLS LAST, k.id`,
      params,
    );
  }

  /** Spans of a trace by id, in page order, every field larger than `fieldBytes` left out and named in `truncated`. */
  spansByIds(projectId: string, traceId: string, ids: string[], fieldBytes: number): Promise<SpanPageRow[]> {
    const kept = CUTTABLE_SPAN_FIELDS.map(
      ([column, , value]) => `CASE WHEN z.${column} > $4 THEN NULL ELSE ${value} END AS ${column}`,
    ).join(', ');
    const cut = CUTTABLE_SPAN_FIELDS.map(([column, name]) => `'${name}', CASE WHEN z.${column} > $4 THEN z.${column} END`).join(', ');
    return this.db.query(
      `SELECT ${FIXED_SPAN_COLUMNS}, ${kept}, jsonb_strip_nulls(jsonb_build_object(${cut})) AS truncated
         FROM spans s ${SPAN_FIELD_SIZES}
        WHERE s.project_id = $1 AND s.trace_id = $2 AND s.id = ANY($3::uuid[])
        ORDER BY s.start_time NULLS LAST, s.id`,
      [projectId, traceId, ids, fieldBytes],
    );
  }

  /** One span of a trace, whole. */
  async spanOf(projectId: string, traceId: string, ids: string[]): Promise<SpanRow | null> {
    const rows: SpanRow[] = await this.db.query(
      `SELECT ${SPAN_COLUMNS} FROM spans s WHERE s.project_id = $1 AND s.trace_id = $2 AND s.id = ANY($3::uuid[]) ORDER BY s.id LIMIT 1`,
      [projectId, traceId, ids],
    );
    return rows[0] ?? null;
  }

  /** As spanPageKeys, for a trace's scores by time then id (a score is at most one scores request, so none is cut). */
  scorePageKeys(
    projectId: string,
    traceId: string,
    after: RowPosition | undefined,
    take: number,
    rowBytes: number,
  ): Promise<SizedKeyRow[]> {
    const params: unknown[] = [projectId, traceId, rowBytes];
    const page = keyset(SCORE_PAGE_ORDER, after, take, params);
    return this.db.query(
      `SELECT c.id, c."timestamp"::text AS time_text,
              ($3 + coalesce(octet_length(c.name), 0) + coalesce(octet_length(c.value::text), 0) + coalesce(octet_length(c.comment), 0)
                  + coalesce(octet_length(c.metadata::text), 0) + coalesce(octet_length(c.external_id), 0))::float8 AS bytes
         FROM (SELECT id, "timestamp" FROM scores WHERE project_id = $1 AND trace_id = $2 AND ${page.after}
                ORDER BY ${page.orderBy} ${page.limit}) k
         JOIN scores c ON c.project_id = $1 AND c.id = k.id
        ORDER BY k."timestamp" NULLS LAST, k.id`,
      params,
    );
  }

  /** One score of the project, wherever it is: what a change of a hand score starts from. */
  async scoreById(projectId: string, id: string): Promise<ScoreRow | null> {
    const [row]: ScoreRow[] = await this.db.query(
      `SELECT id, external_id, trace_id, span_id, name, value, data_type, comment, metadata, source, "timestamp", created_at, author_user_id, author_email
         FROM scores WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    );
    return row ?? null;
  }

  /** Whether the project has the trace and, when one is named, the span in it: what a hand score may be given on. */
  async hasTarget(projectId: string, traceId: string, spanId: string | undefined): Promise<{ trace: boolean; span: boolean }> {
    const [row]: { trace: boolean; span: boolean }[] = await this.db.query(
      `SELECT EXISTS (SELECT 1 FROM traces WHERE project_id = $1 AND id = $2) AS trace,
              $3::uuid IS NULL OR EXISTS (SELECT 1 FROM spans WHERE project_id = $1 AND id = $3 AND trace_id = $2) AS span`,
      [projectId, traceId, spanId ?? null],
    );
    return row;
  }

  scoresByIds(projectId: string, traceId: string, ids: string[]): Promise<ScoreRow[]> {
    return this.db.query(
      `SELECT id, external_id, trace_id, span_id, name, value, data_type, comment, metadata, source, "timestamp", created_at, author_user_id, author_email
         FROM scores WHERE project_id = $1 AND trace_id = $2 AND id = ANY($3::uuid[])
        ORDER BY "timestamp" NULLS LAST, id`,
      [projectId, traceId, ids],
    );
  }

  async scoreCount(projectId: string, traceId: string): Promise<number> {
    const [row] = (await this.db.query(`SELECT count(*)::int AS n FROM scores WHERE project_id = $1 AND trace_id = $2`, [
      projectId,
      traceId,
    ])) as { n: number }[];
    return row.n;
  }

  /**
   * Each listed trace's scores grouped by name and source, for a page of the trace list: the
   * first `groups` names and sources of each trace (a client chooses how many names a trace's
   * scores have).
   */
  scoreSummaries(projectId: string, traceIds: string[], groups: number): Promise<ScoreSummaryRow[]> {
    return this.db.query(
      `SELECT trace_id, name, source, count, mean FROM (
         SELECT c.trace_id, c.name, c.source, count(*)::int AS count, avg(${SCORE_NUMBER}) AS mean,
                row_number() OVER (PARTITION BY c.trace_id ORDER BY c.name, c.source) AS n
           FROM scores c WHERE c.project_id = $1 AND c.trace_id = ANY($2::uuid[])
          GROUP BY c.trace_id, c.name, c.source
       ) g WHERE n <= $3
        ORDER BY name, source`,
      [projectId, traceIds, groups],
    );
  }
}
