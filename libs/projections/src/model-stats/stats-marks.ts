import type { EntityManager } from 'typeorm';
import { SCORE_TIME, statsBucketOf } from '../stats/stats-buckets';

/** What a batch touched that can move the stats: its spans, traces and scores, and the spans or traces its scores are about. */
export interface ModelStatsKeys {
  spans: { projectId: string; id: string }[];
  /** `named`: the batch sets the trace's name, which is a dimension of its spans' overview stats. */
  traces: { projectId: string; id: string; named: boolean }[];
  scores: { projectId: string; id: string; traceId: string | undefined; spanId: string | undefined }[];
}

/** Hours in UTC, whatever the session's time zone. */
export const HOUR_OF = (column: string): string => `date_trunc('hour', ${column}, 'UTC')`;

/**
 * The buckets a span row is in, from `rows` (a relation with the spans' project_id, model and
 * start_time): its (project, model, hour) model-stats bucket and its (project, 5 minutes)
 * overview bucket. `markModelStatsDirty` marks them for keyed spans; the live span upsert for the
 * rows it writes (`markUpsertedSpansSql`).
 */
const SPAN_MODEL_BUCKETS = (rows: string, where = 'true') =>
  `SELECT DISTINCT project_id, model, ${HOUR_OF('start_time')} FROM ${rows} WHERE ${where} AND model IS NOT NULL AND start_time IS NOT NULL`;
const SPAN_OVERVIEW_BUCKETS = (rows: string, where = 'true') =>
  `SELECT project_id, ${statsBucketOf('start_time')} FROM ${rows} WHERE ${where} AND start_time IS NOT NULL`;

/**
 * CTEs that mark the buckets a span upsert moves its rows out of and into: `upserted` names the
 * upsert's CTE, which returns each row's project_id, id, model and start_time as written, and
 * `inserted` (the row is new). The buckets an updated row was in are read from `spans` in the
 * statement's snapshot, which the upsert's own writes are not part of; a new row was in none,
 * so a batch of new spans looks nothing up.
 */
export const markUpsertedSpansSql = (upserted: string): string => `spans_were AS (
  SELECT s.project_id, s.model, s.start_time FROM ${upserted} u JOIN spans s ON s.project_id = u.project_id AND s.id = u.id WHERE NOT u.inserted
), spans_moved AS (
  SELECT project_id, model, start_time FROM ${upserted} UNION ALL SELECT project_id, model, start_time FROM spans_were
), span_model_marks AS (
  INSERT INTO model_stats_dirty (project_id, model, hour) ${SPAN_MODEL_BUCKETS('spans_moved')} ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING
), span_overview_marks AS (
  INSERT INTO stats_5m_dirty (project_id, bucket) ${SPAN_OVERVIEW_BUCKETS('spans_moved')} GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT DO NOTHING
)`;

/**
 * Marks for recount the buckets the keyed rows are in now: the (project, model, hour) buckets
 * of the keyed spans and of the spans the keyed scores are about, and the (project, 5 minutes)
 * overview buckets of the keyed spans, traces and scores and of the spans of renamed traces.
 * One statement. Call before a batch's writes (the buckets a row leaves) and after them (the
 * buckets it joins), in the batch's transaction. The live apply leaves the keyed spans to the
 * span upsert, which marks both for the rows it writes (`markUpsertedSpansSql`).
 */
export async function markModelStatsDirty(manager: EntityManager, keys: ModelStatsKeys): Promise<void> {
  const scoredSpans = keys.scores.filter((s) => s.spanId !== undefined).map((s) => ({ projectId: s.projectId, id: s.spanId as string }));
  const scoredTraces = keys.scores
    .filter((s) => s.spanId === undefined && s.traceId !== undefined)
    .map((s) => ({ projectId: s.projectId, id: s.traceId as string }));
  const renamed = keys.traces.filter((t) => t.named);
  if (!keys.spans.length && !keys.traces.length && !keys.scores.length) return;
  const ids = (list: { projectId: string; id: string }[]) => [list.map((k) => k.projectId), list.map((k) => k.id)];
  await manager.query(
    `WITH touched AS (
       -- for_model: the span's model stats move; for_overview: its overview stats do.
       SELECT s.project_id, s.model, s.start_time, true AS for_model, true AS for_overview
         FROM unnest($1::uuid[], $2::uuid[]) AS k (project_id, id) JOIN spans s ON s.project_id = k.project_id AND s.id = k.id
       UNION ALL
       SELECT s.project_id, s.model, s.start_time, true, false
         FROM unnest($3::uuid[], $4::uuid[]) AS k (project_id, id) JOIN spans s ON s.project_id = k.project_id AND s.id = k.id
       UNION ALL
       SELECT s.project_id, s.model, s.start_time, true, false
         FROM unnest($5::uuid[], $6::uuid[]) AS k (project_id, trace_id) JOIN spans s ON s.project_id = k.project_id AND s.trace_id = k.trace_id
       UNION ALL
       SELECT s.project_id, s.model, s.start_time, false, true
         FROM unnest($7::uuid[], $8::uuid[]) AS k (project_id, trace_id) JOIN spans s ON s.project_id = k.project_id AND s.trace_id = k.trace_id
     ), model_marks AS (
       INSERT INTO model_stats_dirty (project_id, model, hour) ${SPAN_MODEL_BUCKETS('touched', 'for_model')}
        ORDER BY 1, 2, 3
       ON CONFLICT DO NOTHING
     )
     INSERT INTO stats_5m_dirty (project_id, bucket)
     ${SPAN_OVERVIEW_BUCKETS('touched', 'for_overview')}
     UNION SELECT t.project_id, ${statsBucketOf('t."timestamp"')}
       FROM unnest($9::uuid[], $10::uuid[]) AS k (project_id, id) JOIN traces t ON t.project_id = k.project_id AND t.id = k.id
     UNION SELECT c.project_id, ${statsBucketOf(SCORE_TIME('c'))}
       FROM unnest($11::uuid[], $12::uuid[]) AS k (project_id, id) JOIN scores c ON c.project_id = k.project_id AND c.id = k.id
     ORDER BY 1, 2
     ON CONFLICT DO NOTHING`,
    [...ids(keys.spans), ...ids(scoredSpans), ...ids(scoredTraces), ...ids(renamed), ...ids(keys.traces), ...ids(keys.scores)],
  );
}
