import type { DataSource, EntityManager } from 'typeorm';
import { type JsonValue, type RunItemResult, type RunScore, TELEMETRY_RANGES, newestScores } from '@app/domain';
import type { PageRequest } from './dataset-store';

interface ResultRow {
  dataset_item_id: string;
  trace_id: string;
  span_id: string | null;
  created_at: Date;
  input: JsonValue | null;
  expected_output: JsonValue | null;
  output: JsonValue | null;
  latency_ms: number | null;
  total_tokens: number | null;
  total_cost: number | null;
  scores: RunScore[] | null;
  total: number;
}

/**
 * Per run item: the item as it is now, and what its trace shows (the telemetry projection's
 * rows, so a trace still arriving shows what has arrived): its output, else the linked span's
 * (Langfuse's experiments set it on the item's root span), latency, tokens and cost as the
 * trace list computes them, and its scores.
 */
const RESULTS = `
  SELECT ri.dataset_item_id, ri.trace_id, ri.span_id, ri.created_at, v.input, v.expected_output,
         coalesce(t.output, s.output) AS output, a.latency_ms, a.total_tokens, a.total_cost, c.scores,
         count(*) OVER ()::int AS total
    FROM dataset_run_items ri
    LEFT JOIN traces t ON t.project_id = ri.project_id AND t.id = ri.trace_id
    LEFT JOIN spans s ON s.project_id = ri.project_id AND s.id = ri.span_id
    LEFT JOIN LATERAL (
      SELECT v.input, v.expected_output FROM dataset_item_versions v
       WHERE v.project_id = ri.project_id AND v.item_id = ri.dataset_item_id ORDER BY v.valid_from DESC LIMIT 1) v ON true
    LEFT JOIN LATERAL (
      SELECT sum(coalesce(x.total_tokens, x.prompt_tokens + x.completion_tokens, x.prompt_tokens, x.completion_tokens))::float8 AS total_tokens,
             round((sum(x.cost) FILTER (WHERE x.cost <= ${TELEMETRY_RANGES.spanCost.max}))::numeric, 12)::float8 AS total_cost,
             (extract(epoch FROM max(coalesce(x.end_time, x.start_time)) - min(x.start_time)) * 1000)::float8 AS latency_ms
        FROM spans x WHERE x.project_id = ri.project_id AND x.trace_id = ri.trace_id) a ON true
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('name', sc.name, 'value', sc.value, 'comment', sc.comment,
               'timestamp', to_char(coalesce(sc."timestamp", sc.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))) AS scores
        FROM scores sc WHERE sc.project_id = ri.project_id AND sc.trace_id = ri.trace_id AND sc.name IS NOT NULL) c ON true
   WHERE ri.project_id = $1 AND ri.run_id = $2`;

export interface RunItemLink {
  id: string;
  datasetItemId: string;
  traceId: string;
  spanId: string | null;
  createdAt: string;
}

/** A run's item results, read from the telemetry read models. */
export class RunResultsQuery {
  constructor(private readonly db: DataSource | EntityManager) {}

  /** A page of the run's items, by dataset item id, and how many it has. */
  async page(projectId: string, runId: string, { page, limit }: PageRequest): Promise<{ data: RunItemResult[]; totalItems: number }> {
    const rows: ResultRow[] = await this.db.query(`${RESULTS} ORDER BY ri.dataset_item_id LIMIT $3 OFFSET $4`, [
      projectId,
      runId,
      limit,
      (page - 1) * limit,
    ]);
    const totalItems = rows[0]?.total ?? (await this.count(projectId, runId));
    return {
      totalItems,
      data: rows.map((r) => ({
        datasetItemId: r.dataset_item_id,
        traceId: r.trace_id,
        spanId: r.span_id,
        input: r.input,
        expectedOutput: r.expected_output,
        output: r.output,
        latencyMs: r.latency_ms,
        totalTokens: r.total_tokens,
        totalCost: r.total_cost,
        scores: newestScores(r.scores ?? []).map((s) => ({ ...s, comment: s.comment ?? null })),
        createdAt: r.created_at.toISOString(),
      })),
    };
  }

  async count(projectId: string, runId: string): Promise<number> {
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total FROM dataset_run_items WHERE project_id = $1 AND run_id = $2`, [
      projectId,
      runId,
    ]);
    return total;
  }

  /** The run's items as links, the trace and span by the OTel ids they were named by where they were (Langfuse's clients read them so). */
  async links(projectId: string, runId: string): Promise<RunItemLink[]> {
    const rows: { id: string; dataset_item_id: string; trace_id: string; span_id: string | null; created_at: Date }[] = await this.db.query(
      `SELECT id, dataset_item_id, coalesce(otel_trace_id, trace_id::text) AS trace_id, coalesce(otel_span_id, span_id::text) AS span_id, created_at
         FROM dataset_run_items WHERE project_id = $1 AND run_id = $2 ORDER BY created_at, id`,
      [projectId, runId],
    );
    return rows.map((r) => ({
      id: r.id,
      datasetItemId: r.dataset_item_id,
      traceId: r.trace_id,
      spanId: r.span_id,
      createdAt: r.created_at.toISOString(),
    }));
  }
}
