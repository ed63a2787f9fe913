import type { DataSource, EntityManager } from 'typeorm';
import { type LatencyHistogram, mergeHistograms } from '@app/domain';
import { returnedRows } from '@app/persistence';
import { TELEMETRY_TABLES } from '../telemetry/tables/telemetry-writer';
import {
  LATENCY_HIST_AGG,
  RANGE_RECOUNT_SETTINGS,
  RECOUNT_AT_ONCE,
  RECOUNT_DUE,
  type RecountPace,
  SCORE_NUMBER_SQL,
  SCORE_PASS_SQL,
} from '../stats/stats-buckets';
import { markAllOverviewStatsDirty } from '../stats/overview-stats-store';
import { inOneSnapshot } from '../stats/one-snapshot';
import { HOUR_OF } from './stats-marks';

/** A stored cost beyond this is left out of sums, so one absurd row cannot make a bucket fail to recount. */
const SUMMABLE_COST = 1e12;

/**
 * Marks every model-stats and overview bucket with rows or stats for recount: after a rebuild
 * swapped the tables, or to rebuild the stats themselves. Returns how many buckets are marked now.
 */
export async function markAllModelStatsDirty(db: Pick<DataSource, 'query'>): Promise<number> {
  await db.query(
    `INSERT INTO model_stats_dirty (project_id, model, hour)
     SELECT DISTINCT project_id, model, ${HOUR_OF('start_time')} FROM spans WHERE model IS NOT NULL AND start_time IS NOT NULL
     UNION SELECT project_id, model, hour FROM model_stats
     ON CONFLICT DO NOTHING`,
  );
  await markAllOverviewStatsDirty(db);
  return markedStatsBuckets(db);
}

/** Buckets marked and not recounted yet, hourly and 5-minute: how far the stats are behind the rows (due or not). */
export async function markedStatsBuckets(db: Pick<DataSource, 'query'>): Promise<number> {
  const [{ n }] = await db.query('SELECT ((SELECT count(*) FROM model_stats_dirty) + (SELECT count(*) FROM stats_5m_dirty))::int AS n');
  return n;
}

interface Bucket {
  project_id: string;
  model: string;
  hour: Date;
}

/** `d`, the hourly marks due at the pace in parameters `floor` and `perRow`, a bucket's rows being its calls. */
const DUE_MODEL_MARKS = (floor: string, perRow: string) =>
  `model_stats_dirty d
    WHERE ${RECOUNT_DUE('d', '(SELECT s.calls FROM model_stats s WHERE s.project_id = d.project_id AND s.model = d.model AND s.hour = d.hour)', floor, perRow)}`;

const BUCKETS = `SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS b (project_id, model, hour)`;
const SPANS_OF_BUCKETS = `FROM b JOIN spans s ON s.project_id = b.project_id AND s.model = b.model AND s.start_time >= b.hour AND s.start_time < b.hour + interval '1 hour'`;

/**
 * Recounts up to `limit` dirty buckets from the rows, in one transaction; instances share the
 * work (SKIP LOCKED). A batch that writes into a bucket being recounted waits for the recount and
 * marks it again, so no write is missed. Only buckets due at `pace` are taken. Returns how many
 * buckets were recounted.
 */
export async function refreshDirtyModelStats(ds: DataSource, limit: number, pace: RecountPace = RECOUNT_AT_ONCE): Promise<number> {
  return ds.transaction(async (m) => {
    // The tables before the dirty rows: a batch holds the tables and waits for these rows, so the other order could deadlock with a rebuild's swap.
    await m.query(`LOCK TABLE ${TELEMETRY_TABLES.join(', ')} IN ACCESS SHARE MODE; ${RANGE_RECOUNT_SETTINGS}`);
    const buckets: Bucket[] = await m.query(
      `SELECT d.project_id, d.model, d.hour FROM ${DUE_MODEL_MARKS('$2', '$3')} ORDER BY d.hour LIMIT $1 FOR UPDATE OF d SKIP LOCKED`,
      [limit, pace.floorMs, pace.msPerRow],
    );
    if (!buckets.length) return 0;
    const params = [buckets.map((b) => b.project_id), buckets.map((b) => b.model), buckets.map((b) => b.hour)];
    // Before the statement that counts them again, which cannot see its own deletions.
    await m.query(
      `DELETE FROM model_score_stats m USING (${BUCKETS}) b WHERE m.project_id = b.project_id AND m.model = b.model AND m.hour = b.hour`,
      params,
    );
    // The calls' stats and their scores' from one read of the buckets' spans (a second read of a
    // hot hour's rows, mostly from outside Postgres's buffers, was a third of its recount). Each
    // call's scores through an index, by span and by trace: never a whole table.
    await m.query(
      `WITH b AS (${BUCKETS}),
       s AS (
         SELECT b.project_id, b.model, b.hour, s.id, s.trace_id, s.level, s.prompt_tokens, s.completion_tokens,
                CASE WHEN abs(s.cost) < ${SUMMABLE_COST} THEN s.cost END AS cost,
                CASE WHEN s.end_time >= s.start_time THEN extract(epoch FROM s.end_time - s.start_time)::float8 * 1000 END AS ms
           ${SPANS_OF_BUCKETS}
       ),
       agg AS (
         SELECT project_id, model, hour, count(*)::int AS calls, (count(*) FILTER (WHERE level = 'ERROR'))::int AS errors,
                count(ms)::int AS timed_calls, coalesce(sum(ms), 0) AS latency_sum_ms, ${LATENCY_HIST_AGG('ms')} AS latency_hist, count(cost)::int AS costed_calls,
                coalesce(sum(cost), 0) AS cost_usd, coalesce(sum(prompt_tokens), 0) AS prompt_tokens, coalesce(sum(completion_tokens), 0) AS completion_tokens
           FROM s GROUP BY 1, 2, 3
       ),
       upserted AS (
         INSERT INTO model_stats (project_id, model, hour, calls, errors, timed_calls, latency_sum_ms, latency_hist, costed_calls, cost_usd, prompt_tokens, completion_tokens, updated_at)
         SELECT project_id, model, hour, calls, errors, timed_calls, latency_sum_ms, latency_hist, costed_calls, cost_usd, prompt_tokens, completion_tokens, now()
           FROM agg
         ON CONFLICT (project_id, model, hour) DO UPDATE SET calls = excluded.calls, errors = excluded.errors, timed_calls = excluded.timed_calls,
           latency_sum_ms = excluded.latency_sum_ms, latency_hist = excluded.latency_hist, costed_calls = excluded.costed_calls, cost_usd = excluded.cost_usd,
           prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, updated_at = excluded.updated_at
       ),
       about AS (
         SELECT x.project_id, x.model, x.hour, c.id, c.source, c.name, c.value, c.metadata
           FROM s x JOIN scores c ON c.project_id = x.project_id AND c.span_id = x.id
         UNION ALL
         SELECT x.project_id, x.model, x.hour, c.id, c.source, c.name, c.value, c.metadata
           FROM (SELECT DISTINCT project_id, model, hour, trace_id FROM s) x
           JOIN scores c ON c.project_id = x.project_id AND c.trace_id = x.trace_id AND c.span_id IS NULL
       ),
       -- A score of a whole trace counts once per model and hour, however many calls the trace made.
       once AS (
         SELECT DISTINCT ON (project_id, model, hour, id) project_id, model, hour, coalesce(source, 'API') AS source, coalesce(name, '') AS name,
                ${SCORE_NUMBER_SQL('value', 'metadata')} AS number, ${SCORE_PASS_SQL('value', 'metadata')} AS pass
           FROM about ORDER BY project_id, model, hour, id
       ),
       scored AS (
         INSERT INTO model_score_stats (project_id, model, hour, source, name, scores, numeric_scores, value_sum, judged, passed)
         SELECT project_id, model, hour, source, name, count(*)::int, count(number)::int, coalesce(sum(number), 0), count(pass)::int, (count(*) FILTER (WHERE pass))::int
           FROM once GROUP BY 1, 2, 3, 4, 5
       )
       DELETE FROM model_stats m USING b
        WHERE m.project_id = b.project_id AND m.model = b.model AND m.hour = b.hour
          AND NOT EXISTS (SELECT 1 FROM agg a WHERE a.project_id = b.project_id AND a.model = b.model AND a.hour = b.hour)`,
      params,
    );
    await m.query(
      `DELETE FROM model_stats_dirty d USING (${BUCKETS}) b WHERE d.project_id = b.project_id AND d.model = b.model AND d.hour = b.hour`,
      params,
    );
    return buckets.length;
  });
}

/** Drops the oldest dirty mark without recounting: for a bucket whose recount keeps failing, so it cannot hold the others back. */
export async function discardOldestDirtyBucket(ds: DataSource, pace: RecountPace = RECOUNT_AT_ONCE): Promise<Bucket | null> {
  const rows = returnedRows<Bucket>(
    await ds.query(
      `DELETE FROM model_stats_dirty WHERE ctid = (SELECT d.ctid FROM ${DUE_MODEL_MARKS('$1', '$2')} ORDER BY d.hour LIMIT 1 FOR UPDATE OF d SKIP LOCKED)
       RETURNING project_id, model, hour`,
      [pace.floorMs, pace.msPerRow],
    ),
  );
  return rows[0] ?? null;
}

/** One model's stats merged over a window of hours. */
export interface ModelWindowStats {
  model: string;
  calls: number;
  errors: number;
  timedCalls: number;
  latencySumMs: number;
  latency: LatencyHistogram;
  costedCalls: number;
  costUsd: number;
  promptTokens: number;
  completionTokens: number;
  scores: { source: string; name: string; scores: number; numericScores: number; valueSum: number; judged: number; passed: number }[];
}

/**
 * The stats of `models` in a project over the hours from `since` (inclusive); models without any
 * are absent. The calls and the scores in one snapshot: one recount writes a bucket's both.
 */
export function readModelStats(ds: DataSource, projectId: string, models: string[], since: Date): Promise<Map<string, ModelWindowStats>> {
  return inOneSnapshot(ds, (db) => modelStatsIn(db, projectId, models, since));
}

async function modelStatsIn(db: EntityManager, projectId: string, models: string[], since: Date): Promise<Map<string, ModelWindowStats>> {
  const rows: {
    model: string;
    calls: number;
    errors: number;
    timed: number;
    latency_sum: number;
    hists: LatencyHistogram[];
    costed: number;
    cost: number;
    prompt: number;
    completion: number;
  }[] = await db.query(
    `SELECT model, sum(calls)::float8 AS calls, sum(errors)::float8 AS errors, sum(timed_calls)::float8 AS timed, sum(latency_sum_ms) AS latency_sum,
            jsonb_agg(latency_hist) AS hists, sum(costed_calls)::float8 AS costed, sum(cost_usd) AS cost,
            sum(prompt_tokens)::float8 AS prompt, sum(completion_tokens)::float8 AS completion
       FROM model_stats WHERE project_id = $1 AND model = ANY($2::text[]) AND hour >= $3 GROUP BY model`,
    [projectId, models, since],
  );
  const stats = new Map<string, ModelWindowStats>(
    rows.map((r) => [
      r.model,
      {
        model: r.model,
        calls: r.calls,
        errors: r.errors,
        timedCalls: r.timed,
        latencySumMs: r.latency_sum,
        latency: mergeHistograms(r.hists),
        costedCalls: r.costed,
        costUsd: r.cost,
        promptTokens: r.prompt,
        completionTokens: r.completion,
        scores: [],
      },
    ]),
  );
  const scores: {
    model: string;
    source: string;
    name: string;
    scores: number;
    numeric: number;
    value_sum: number;
    judged: number;
    passed: number;
  }[] = await db.query(
    `SELECT model, source, name, sum(scores)::float8 AS scores, sum(numeric_scores)::float8 AS numeric, sum(value_sum) AS value_sum,
            sum(judged)::float8 AS judged, sum(passed)::float8 AS passed
       FROM model_score_stats WHERE project_id = $1 AND model = ANY($2::text[]) AND hour >= $3 GROUP BY model, source, name`,
    [projectId, models, since],
  );
  for (const s of scores) {
    stats.get(s.model)?.scores.push({
      source: s.source,
      name: s.name,
      scores: s.scores,
      numericScores: s.numeric,
      valueSum: s.value_sum,
      judged: s.judged,
      passed: s.passed,
    });
  }
  return stats;
}
