import { setImmediate } from 'node:timers/promises';
import type { EntityManager } from 'typeorm';
import type { RunItemDelta, ScoreDelta, ScoreDeletion, SpanDelta, TelemetryFacts, TraceDeletion, TraceDelta, Versioned } from '@app/domain';
import { type LeanAttributes, leanAttributes } from './attribute-copies';
import { type FieldColumn, SCORE_FIELD_COLUMNS, SPAN_FIELD_COLUMNS, TRACE_FIELD_COLUMNS } from './columns';
import { type MentionedTraces, mentionedTraces, withoutDeletedTraces } from './deleted-traces';
import { SCORE_TIME, statsBucketOf } from '../../stats/stats-buckets';
import { storedVersions } from './stored-versions';
import { type FixedColumn, buildUpsertSql, rowColumns } from './upsert-sql';
import { markUpsertedSpansSql } from '../../model-stats/stats-marks';

/** The projection's read models, in the order every writer and a rebuild's swap lock them. */
export const TELEMETRY_TABLES = ['traces', 'spans', 'scores', 'dataset_run_items'] as const;

const TRACE_FIXED: FixedColumn<TraceDelta>[] = [
  { column: 'project_id', type: 'uuid', merge: 'key', of: (d) => d.projectId },
  { column: 'id', type: 'uuid', merge: 'key', of: (d) => d.id },
  { column: 'otel_trace_id', type: 'text', merge: 'first', of: (d) => d.otelTraceId },
  { column: 'external_id', type: 'text', merge: 'first', of: (d) => d.externalId },
  { column: 'created_at', type: 'timestamptz', merge: 'min', of: (d) => d.createdAt },
  { column: 'first_event_time', type: 'timestamptz', merge: 'min', of: (d) => d.firstEventTime },
  { column: 'min_span_start', type: 'timestamptz', merge: 'min', of: (d) => d.minSpanStart },
];
/** A span with its attributes as stored (`leanAttributes`), worked out once per row. */
interface LeanSpan {
  delta: SpanDelta;
  lean: LeanAttributes | null;
}
const SPAN_FIXED: FixedColumn<LeanSpan>[] = [
  { column: 'project_id', type: 'uuid', merge: 'key', of: (s) => s.delta.projectId },
  { column: 'id', type: 'uuid', merge: 'key', of: (s) => s.delta.id },
  { column: 'otel_span_id', type: 'text', merge: 'first', of: (s) => s.delta.otelSpanId },
  { column: 'external_id', type: 'text', merge: 'first', of: (s) => s.delta.externalId },
  { column: 'created_at', type: 'timestamptz', merge: 'min', of: (s) => s.delta.createdAt },
  // The attribute keys of the input and output copies left out of `attributes` (`leanAttributes`).
  { column: 'input_attribute', type: 'text', merge: 'cleared', of: (s) => s.lean?.input_attribute },
  { column: 'output_attribute', type: 'text', merge: 'cleared', of: (s) => s.lean?.output_attribute },
];
const SCORE_FIXED: FixedColumn<ScoreDelta>[] = [
  { column: 'project_id', type: 'uuid', merge: 'key', of: (d) => d.projectId },
  { column: 'id', type: 'uuid', merge: 'key', of: (d) => d.id },
  { column: 'external_id', type: 'text', merge: 'first', of: (d) => d.externalId },
  { column: 'created_at', type: 'timestamptz', merge: 'min', of: (d) => d.createdAt },
];

/**
 * Rows this statement created (not merged into), per project and UTC month of creation:
 * what usage counts. `xmax = 0` tells an inserted row from an updated one. `also` adds CTEs
 * over `up`, the rows as written, with `returning` columns beyond those counted.
 */
const countingNewRows = (upsert: string, also: { returning: string; ctes: string } | null = null) => `WITH up AS (${upsert}
RETURNING project_id, created_at, (xmax = 0) AS inserted${also ? `, ${also.returning}` : ''})${also ? `, ${also.ctes}` : ''}
SELECT project_id AS "projectId", to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS n
  FROM up WHERE inserted GROUP BY 1, 2`;

/** Each table's columns in the order its rows' arrays hold them (`rowColumns`). */
export const ROW_COLUMNS = {
  traces: rowColumns(TRACE_FIXED, TRACE_FIELD_COLUMNS),
  spans: rowColumns(SPAN_FIXED, SPAN_FIELD_COLUMNS),
  scores: rowColumns(SCORE_FIXED, SCORE_FIELD_COLUMNS),
};

const TRACE_UPSERT = countingNewRows(buildUpsertSql('traces', TRACE_FIXED, TRACE_FIELD_COLUMNS));
const SPAN_UPSERT_SQL = buildUpsertSql('spans', SPAN_FIXED, SPAN_FIELD_COLUMNS);
const SPAN_UPSERT = countingNewRows(SPAN_UPSERT_SQL);
/**
 * The live write's span upsert: it also marks the stats buckets its rows leave and join, from
 * the rows it returns (and, for a row it updated, the row as it was), where a mark before and
 * one after the write looked every span up again.
 */
const SPAN_UPSERT_MARKING = countingNewRows(SPAN_UPSERT_SQL, { returning: 'id, model, start_time', ctes: markUpsertedSpansSql('up') });
const SCORE_UPSERT = buildUpsertSql('scores', SCORE_FIXED, SCORE_FIELD_COLUMNS);

/** A run item is replaced whole by a newer link (`mergeRunItem`), in sorted key order as every upsert here locks its rows. */
const RUN_ITEM_LINK_COLUMNS = ['run_id', 'dataset_item_id', 'trace_id', 'span_id', 'otel_trace_id', 'otel_span_id', 'version'];
const RUN_ITEM_UPSERT = `INSERT INTO dataset_run_items AS d (project_id, id, created_at, ${RUN_ITEM_LINK_COLUMNS.join(', ')})
SELECT r.project_id, r.id, r.created_at, ${RUN_ITEM_LINK_COLUMNS.map((c) => `r.${c}`).join(', ')}
  FROM jsonb_to_recordset($1::jsonb) AS r (project_id uuid, id uuid, run_id uuid, dataset_item_id text, trace_id uuid, span_id uuid,
       otel_trace_id text, otel_span_id text, created_at timestamptz, version text)
 ORDER BY r.project_id, r.id
ON CONFLICT (project_id, id) DO UPDATE SET
  ${RUN_ITEM_LINK_COLUMNS.map((c) => `${c} = CASE WHEN excluded.version > d.version THEN excluded.${c} ELSE d.${c} END`).join(',\n  ')},
  created_at = least(d.created_at, excluded.created_at)`;

/** How many traces or spans a write created in one project and UTC month. */
export interface NewRows {
  projectId: string;
  month: string;
  n: number;
}

export interface WrittenTelemetry {
  newTraces: NewRows[];
  newSpans: NewRows[];
}

/**
 * A row as the upsert reads it (`rowColumns`' order): the fixed columns, the delta's fields,
 * its versions. An unset field is `undefined`, which JSON writes as null in an array.
 */
function rowOf<D, F>(source: D, fixed: FixedColumn<D>[], delta: Versioned<F>, fields: FieldColumn<F>[]): unknown[] {
  const row: unknown[] = [];
  for (const column of fixed) row.push(column.of(source));
  for (const { field } of fields) row.push(delta.values[field]);
  row.push(storedVersions(delta.versions));
  return row;
}

const traceRow = (d: TraceDelta) => rowOf(d, TRACE_FIXED, d, TRACE_FIELD_COLUMNS);
/** Where a span row holds `attributes`: stored without the input and output copies. */
const SPAN_ATTRIBUTES_AT = SPAN_FIXED.length + SPAN_FIELD_COLUMNS.findIndex((c) => c.field === 'attributes');
const spanRow = (delta: SpanDelta) => {
  const lean = leanAttributes(delta);
  const row = rowOf({ delta, lean }, SPAN_FIXED, delta, SPAN_FIELD_COLUMNS);
  if (lean) row[SPAN_ATTRIBUTES_AT] = lean.attributes;
  return row;
};
/** Run items are few: written as objects, read by `jsonb_to_recordset`. */
const runItemRecord = (d: RunItemDelta) => ({
  project_id: d.projectId,
  id: d.id,
  run_id: d.runId,
  dataset_item_id: d.datasetItemId,
  trace_id: d.traceId,
  span_id: d.spanId,
  otel_trace_id: d.otelTraceId,
  otel_span_id: d.otelSpanId,
  created_at: d.createdAt,
  version: d.version,
});
const scoreRow = (d: ScoreDelta) => rowOf(d, SCORE_FIXED, d, SCORE_FIELD_COLUMNS);

/**
 * A batch's folded facts with the upserts' parameters already serialized: the costly part
 * of a write done before its transaction, so that the live projection can do it while the
 * previous batch commits.
 */
export interface PreparedTelemetry {
  /**
   * The folded facts the rows were serialized from; in a batch prepared in a rebuild's worker
   * thread only its deletions and scores (the rest is in `rows`), with `refold` set.
   */
  facts: TelemetryFacts;
  mentioned: MentionedTraces;
  rows: { traces: string | null; spans: string | null; scores: string | null; runItems: string | null };
  /**
   * A batch prepared elsewhere: its whole facts, decoded again in this thread, for the rare
   * write that must leave rows of a tombstoned trace out and serialize the rest again.
   */
  refold?: () => Promise<TelemetryFacts>;
}

/** Rows serialized per slice between which the event loop runs, so no slice holds it for long. */
const ROWS_PER_SLICE = 500;

/**
 * The rows as one JSON array, built a slice at a time with a turn of the event loop between
 * slices: the live projection prepares a batch while the previous one is being written, and
 * a long synchronous stretch here would keep that write's next statement from being sent.
 * The slices are joined once, brackets included, into one flat string: a concatenation around
 * the join would leave a rope that the driver's `Buffer.byteLength` flattens, a copy of the
 * whole batch that took 3% of the live processor's CPU.
 */
async function rowsOf<D>(deltas: D[], row: (d: D) => unknown): Promise<string | null> {
  if (!deltas.length) return null;
  const slices: string[] = [];
  for (let i = 0; i < deltas.length; i += ROWS_PER_SLICE) {
    if (i > 0) await setImmediate();
    const rows: unknown[] = [];
    for (let j = i; j < Math.min(i + ROWS_PER_SLICE, deltas.length); j++) rows.push(row(deltas[j]));
    slices.push(JSON.stringify(rows));
  }
  // Each slice without its inner brackets: the first keeps its `[`, the last its `]`.
  return slices.map((s, k) => s.slice(k === 0 ? 0 : 1, k === slices.length - 1 ? undefined : -1)).join(',');
}

export async function prepareTelemetry(facts: TelemetryFacts): Promise<PreparedTelemetry> {
  return {
    facts,
    mentioned: mentionedTraces(facts),
    rows: {
      traces: await rowsOf(facts.traces, traceRow),
      spans: await rowsOf(facts.spans, spanRow),
      scores: await rowsOf(facts.scores, scoreRow),
      runItems: await rowsOf(facts.runItems, runItemRecord),
    },
  };
}

/**
 * Writes folded facts (one delta per row) with one statement per table. Call inside the
 * batch's transaction; the merge in SQL makes the write idempotent and order-insensitive.
 */
export async function writeTelemetry(manager: EntityManager, facts: TelemetryFacts): Promise<WrittenTelemetry> {
  const prepared = await prepareTelemetry(facts);
  await lockTelemetryTables(manager);
  return writePreparedTelemetry(manager, prepared);
}

/** How the live write differs from a rebuild's. */
export interface WriteOptions {
  /**
   * Mark the stats buckets the written spans leave and join, in the span upsert itself (live; a
   * rebuild marks every bucket once it swaps). Marking what traces and scores move stays with
   * the caller (`applyTelemetryBatch`).
   */
  markSpanStats: boolean;
}

/** The write itself, in a transaction that took `lockTelemetryTables` first (the locks' order and the write's settings). */
export async function writePreparedTelemetry(
  manager: EntityManager,
  batch: PreparedTelemetry,
  options: WriteOptions = { markSpanStats: false },
): Promise<WrittenTelemetry> {
  // Deletions first, so that the rows left out below include those of a trace this batch deletes.
  await deleteTrackedTraces(manager, batch.facts.deletions);
  let kept = await withoutDeletedTraces(manager, batch.facts, batch.mentioned);
  // A batch prepared elsewhere holds its rows but not their facts: the whole facts, and the same look-up over them.
  if (kept !== batch.facts && batch.refold) kept = await withoutDeletedTraces(manager, await batch.refold(), batch.mentioned);
  // Rows of a tombstoned trace (rare) mean serializing again without them.
  const { rows } = kept === batch.facts ? batch : await prepareTelemetry(kept);
  const written: WrittenTelemetry = { newTraces: [], newSpans: [] };
  if (rows.traces) written.newTraces = await manager.query(TRACE_UPSERT, [rows.traces]);
  if (rows.spans) written.newSpans = await manager.query(options.markSpanStats ? SPAN_UPSERT_MARKING : SPAN_UPSERT, [rows.spans]);
  if (rows.scores) await manager.query(SCORE_UPSERT, [await scoresNotRemoved(manager, kept.scores, rows.scores)]);
  if (rows.runItems) await manager.query(RUN_ITEM_UPSERT, [rows.runItems]);
  await removeScores(manager, batch.facts.scoreDeletions);
  return written;
}

/**
 * The score rows without those of hand scores removed before (a message applied again, by a
 * replay or a dead-letter retry, must not bring one back); the same rows when there are none.
 * Only a hand score (one with an author) can be removed, so only those are looked up.
 */
async function scoresNotRemoved(manager: EntityManager, scores: ScoreDelta[], rows: string): Promise<string> {
  const byHand = scores.filter((s) => s.values.authorUserId !== undefined);
  if (!byHand.length) return rows;
  const removed: { id: string }[] = await manager.query(
    `SELECT d.id::text AS id FROM deleted_scores d JOIN unnest($1::uuid[], $2::uuid[]) AS k (project_id, id) ON d.project_id = k.project_id AND d.id = k.id`,
    [byHand.map((s) => s.projectId), byHand.map((s) => s.id)],
  );
  if (!removed.length) return rows;
  const gone = new Set(removed.map((r) => r.id.toLowerCase()));
  return JSON.stringify(scores.filter((s) => !gone.has(s.id.toLowerCase())).map(scoreRow));
}

/** Removes hand scores for good: a tombstone, then the row (after the batch's upserts, so a score given and removed in one batch is gone). */
async function removeScores(manager: EntityManager, deletions: ScoreDeletion[]): Promise<void> {
  if (!deletions.length) return;
  await manager.query(
    `WITH gone AS (
       SELECT DISTINCT ON (project_id, id) project_id, id, deleted_at
         FROM jsonb_to_recordset($1::jsonb) AS r (project_id uuid, id uuid, deleted_at timestamptz) ORDER BY project_id, id, deleted_at
     ), tombstones AS (
       INSERT INTO deleted_scores (project_id, id, deleted_at) SELECT project_id, id, deleted_at FROM gone ORDER BY project_id, id ON CONFLICT DO NOTHING
     )
     DELETE FROM scores s USING gone g WHERE s.project_id = g.project_id AND s.id = g.id`,
    [JSON.stringify(deletions.map((d) => ({ project_id: d.projectId, id: d.id, deleted_at: d.deletedAt })))],
  );
}

export interface DeletedRows {
  traces: number;
  spans: number;
  scores: number;
}

/**
 * Tombstones the traces and deletes them with their spans, scores, run items and evaluation results. Idempotent: the live
 * projection applies a deletion the retention job already applied, and a replay applies it again.
 */
export async function deleteTraces(manager: EntityManager, deletions: TraceDeletion[]): Promise<DeletedRows> {
  if (!deletions.length) return { traces: 0, spans: 0, scores: 0 };
  await lockTelemetryTables(manager);
  return deleteTrackedTraces(manager, deletions);
}

/**
 * A write's settings, for its transaction only (`SET LOCAL`), measured on 64-message batches of
 * OTLP spans:
 * - memory for the upserts' sort of a batch's rows by key (the order every writer locks rows
 *   in): at Postgres's default 4 MB the span upsert sorted its 6,400 rows (about 10 MB) on disk,
 *   a tenth of its time;
 * - generic plans: a custom plan folds the batch's 10 MB JSON parameter into the plan as a
 *   constant, and planning copies it (once per CTE of the upsert), about a tenth of the
 *   statement's Postgres CPU in `perf`; a generic plan reads the parameter where it is. The
 *   plans are the same shape (a set-returning function over a parameter is estimated at 100
 *   rows either way).
 */
const WRITE_SETTINGS = "SET LOCAL work_mem = '64MB'; SET LOCAL plan_cache_mode = force_generic_plan";

/**
 * Every writer takes the read models' table locks first and in one order, the order a
 * rebuild's swap takes them in: a writer then waits for a swap (and writes into the new
 * tables) or a swap waits for the writer's commit, and neither can deadlock the other.
 * The write's settings come with them, in the same round trip.
 */
export async function lockTelemetryTables(manager: EntityManager): Promise<void> {
  await manager.query(`LOCK TABLE ${TELEMETRY_TABLES.join(', ')} IN ROW EXCLUSIVE MODE; ${WRITE_SETTINGS}`);
}

async function deleteTrackedTraces(manager: EntityManager, deletions: TraceDeletion[]): Promise<DeletedRows> {
  if (!deletions.length) return { traces: 0, spans: 0, scores: 0 };
  const [counts] = await manager.query(
    `WITH gone AS (
       SELECT DISTINCT ON (project_id, id) project_id, id, deleted_at
         FROM jsonb_to_recordset($1::jsonb) AS r (project_id uuid, id uuid, deleted_at timestamptz)
        ORDER BY project_id, id, deleted_at
     ), tombstones AS (
       INSERT INTO deleted_traces (project_id, id, deleted_at) SELECT project_id, id, deleted_at FROM gone ORDER BY project_id, id ON CONFLICT DO NOTHING
     ), stats_dirty AS (
       -- The model stats of the deleted spans' hours are counted again without them.
       INSERT INTO model_stats_dirty (project_id, model, hour)
       SELECT DISTINCT s.project_id, s.model, date_trunc('hour', s.start_time, 'UTC') FROM spans s JOIN gone g ON s.project_id = g.project_id AND s.trace_id = g.id
        WHERE s.model IS NOT NULL AND s.start_time IS NOT NULL
       ON CONFLICT DO NOTHING
     ), stats_5m_dirty AS (
       -- And the overview stats of the deleted spans', trace's and scores' 5-minute buckets.
       INSERT INTO stats_5m_dirty (project_id, bucket)
       SELECT s.project_id, ${statsBucketOf('s.start_time')} FROM spans s JOIN gone g ON s.project_id = g.project_id AND s.trace_id = g.id WHERE s.start_time IS NOT NULL
       UNION SELECT t.project_id, ${statsBucketOf('t."timestamp"')} FROM traces t JOIN gone g ON t.project_id = g.project_id AND t.id = g.id
       UNION SELECT c.project_id, ${statsBucketOf(SCORE_TIME('c'))} FROM scores c JOIN gone g ON c.project_id = g.project_id AND c.trace_id = g.id
       ON CONFLICT DO NOTHING
     ), run_items_gone AS (
       -- A run item shows its trace's output and scores: it goes with the trace (the dataset and run are configuration and stay).
       DELETE FROM dataset_run_items r USING gone g WHERE r.project_id = g.project_id AND r.trace_id = g.id
     ), scores_gone AS (
       DELETE FROM scores s USING gone g WHERE s.project_id = g.project_id AND s.trace_id = g.id RETURNING 1
     ), spans_gone AS (
       DELETE FROM spans s USING gone g WHERE s.project_id = g.project_id AND s.trace_id = g.id RETURNING 1
     ), traces_gone AS (
       DELETE FROM traces t USING gone g WHERE t.project_id = g.project_id AND t.id = g.id RETURNING 1
     ), eval_results_gone AS (
       -- An evaluation's result speaks of the trace's content, so it goes too; the job stays, as a run the month's eval quota counted.
       UPDATE eval_jobs j SET score = NULL, pass = NULL, reason = NULL, comment = NULL, category = NULL, error = NULL
         FROM gone g WHERE j.project_id = g.project_id AND j.trace_id = g.id AND j.status <> 'skipped'
          AND (j.score IS NOT NULL OR j.reason IS NOT NULL OR j.comment IS NOT NULL OR j.error IS NOT NULL)
     ), skipped_runs_gone AS (
       -- A skipped run (sampled out, above all) counted nothing: it goes with its trace, which bounds the run log by retention.
       DELETE FROM eval_jobs j USING gone g WHERE j.project_id = g.project_id AND j.trace_id = g.id AND j.status = 'skipped'
     ), trace_evaluations_gone AS (
       -- A deleted trace is never evaluated: nothing of it can arrive again to arm it.
       DELETE FROM trace_evaluations_pending p USING gone g WHERE p.project_id = g.project_id AND p.trace_id = g.id
     )
     SELECT (SELECT count(*) FROM traces_gone)::int AS traces, (SELECT count(*) FROM spans_gone)::int AS spans, (SELECT count(*) FROM scores_gone)::int AS scores`,
    [JSON.stringify(deletions.map((d) => ({ project_id: d.projectId, id: d.id, deleted_at: d.deletedAt })))],
  );
  return counts;
}
