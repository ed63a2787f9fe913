import type { DataSource } from 'typeorm';
import {
  type LatencyHistogram,
  type OverviewSums,
  type ScoreSums,
  type SpanSums,
  type StatsFilter,
  type UnpricedUsageRow,
} from '@app/domain';
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
  SCORE_TIME,
  STATS_DIMENSION_LENGTH,
  statsBucketOf,
} from './stats-buckets';

type Db = Pick<DataSource, 'query'>;

/** The 5-minute stats, each recounted whole per bucket. */
const OVERVIEW_STATS_TABLES = ['span_stats_5m', 'trace_stats_5m', 'score_stats_5m', 'unpriced_stats_5m'];

/** A stored cost beyond this is left out of sums, as in model_stats. */
const SUMMABLE_COST = 1e12;
const dimension = (sql: string) => `left(coalesce(${sql}, ''), ${STATS_DIMENSION_LENGTH})`;

/** Marks every overview bucket with rows or stats for recount (see markAllModelStatsDirty, which calls it). */
export async function markAllOverviewStatsDirty(db: Db): Promise<void> {
  await db.query(
    `INSERT INTO stats_5m_dirty (project_id, bucket)
     SELECT DISTINCT project_id, ${statsBucketOf('start_time')} FROM spans WHERE start_time IS NOT NULL
     UNION SELECT project_id, ${statsBucketOf('"timestamp"')} FROM traces
     UNION SELECT project_id, ${statsBucketOf(SCORE_TIME('scores'))} FROM scores
     UNION SELECT project_id, bucket FROM span_stats_5m
     UNION SELECT project_id, bucket FROM trace_stats_5m
     UNION SELECT project_id, bucket FROM score_stats_5m
     UNION SELECT project_id, bucket FROM unpriced_stats_5m
     ON CONFLICT DO NOTHING`,
  );
}

interface Bucket {
  project_id: string;
  bucket: Date;
}

const BUCKETS = `SELECT * FROM unnest($1::uuid[], $2::timestamptz[]) AS b (project_id, bucket)`;
const IN_BUCKET = (column: string) => `${column} >= b.bucket AND ${column} < b.bucket + interval '5 minutes'`;

/** `d`, the 5-minute marks due at the pace in parameters `floor` and `perRow`, a bucket's rows being its spans. */
const DUE_OVERVIEW_MARKS = (floor: string, perRow: string) =>
  `stats_5m_dirty d
    WHERE ${RECOUNT_DUE('d', '(SELECT sum(x.calls) FROM span_stats_5m x WHERE x.project_id = d.project_id AND x.bucket = d.bucket)', floor, perRow)}`;

/**
 * Recounts up to `limit` dirty overview buckets from the rows, in one transaction, replacing
 * their stats whole; instances share the work (SKIP LOCKED). A batch writing into a bucket
 * being recounted waits for the recount and marks it again, so no write is missed. Only buckets
 * due at `pace` are taken.
 */
export async function refreshDirtyOverviewStats(ds: DataSource, limit: number, pace: RecountPace = RECOUNT_AT_ONCE): Promise<number> {
  return ds.transaction(async (m) => {
    // The tables before the dirty rows, as refreshDirtyModelStats and for the same reason. Every
    // statement below reads its buckets' rows by their time range.
    await m.query(`LOCK TABLE ${TELEMETRY_TABLES.join(', ')} IN ACCESS SHARE MODE; ${RANGE_RECOUNT_SETTINGS}`);
    const buckets: Bucket[] = await m.query(
      `SELECT d.project_id, d.bucket FROM ${DUE_OVERVIEW_MARKS('$2', '$3')} ORDER BY d.bucket LIMIT $1 FOR UPDATE OF d SKIP LOCKED`,
      [limit, pace.floorMs, pace.msPerRow],
    );
    if (!buckets.length) return 0;
    const params = [buckets.map((b) => b.project_id), buckets.map((b) => b.bucket)];
    for (const table of OVERVIEW_STATS_TABLES) {
      await m.query(`DELETE FROM ${table} m USING (${BUCKETS}) b WHERE m.project_id = b.project_id AND m.bucket = b.bucket`, params);
    }
    await m.query(
      `WITH b AS (${BUCKETS}),
       s AS (
         SELECT b.project_id, b.bucket, ${dimension('s.type')} AS span_type, ${dimension('s.model')} AS model, ${dimension('t.name')} AS trace_name,
                ${dimension('s.operation')} AS operation, s.level, cardinality(s.unpriced_usage) > 0 AS unpriced, s.prompt_tokens, s.completion_tokens, coalesce(s.total_tokens, coalesce(s.prompt_tokens, 0) + coalesce(s.completion_tokens, 0)) AS total_tokens,
                CASE WHEN abs(s.cost) < ${SUMMABLE_COST} THEN s.cost END AS cost,
                CASE WHEN s.end_time >= s.start_time THEN extract(epoch FROM s.end_time - s.start_time)::float8 * 1000 END AS ms
           FROM b JOIN spans s ON s.project_id = b.project_id AND ${IN_BUCKET('s.start_time')}
           LEFT JOIN traces t ON t.project_id = s.project_id AND t.id = s.trace_id
       ),
       agg AS (
         SELECT project_id, bucket, span_type, model, trace_name, operation, count(*)::int AS calls, (count(*) FILTER (WHERE level = 'ERROR'))::int AS errors,
                ${LATENCY_HIST_AGG('ms')} AS latency_hist, coalesce(sum(cost), 0) AS cost_usd, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
                coalesce(sum(completion_tokens), 0) AS completion_tokens, coalesce(sum(total_tokens), 0) AS total_tokens,
                (count(*) FILTER (WHERE unpriced))::int AS unpriced_calls
           FROM s GROUP BY 1, 2, 3, 4, 5, 6
       )
       INSERT INTO span_stats_5m (project_id, bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens, unpriced_calls)
       SELECT project_id, bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens, unpriced_calls
         FROM agg`,
      params,
    );
    await m.query(
      `WITH b AS (${BUCKETS})
       INSERT INTO trace_stats_5m (project_id, bucket, traces)
       SELECT b.project_id, b.bucket, count(*)::int FROM b JOIN traces t ON t.project_id = b.project_id AND ${IN_BUCKET('t."timestamp"')} GROUP BY 1, 2`,
      params,
    );
    await m.query(
      `WITH b AS (${BUCKETS}),
       c AS (
         SELECT b.project_id, b.bucket, ${dimension('t.name')} AS trace_name, coalesce(c.source, 'API') AS source, ${dimension('c.name')} AS name,
                ${SCORE_NUMBER_SQL('c.value', 'c.metadata')} AS number, ${SCORE_PASS_SQL('c.value', 'c.metadata')} AS pass
           FROM b JOIN scores c ON c.project_id = b.project_id AND ${IN_BUCKET(SCORE_TIME('c'))}
           LEFT JOIN traces t ON t.project_id = c.project_id AND t.id = c.trace_id
       )
       INSERT INTO score_stats_5m (project_id, bucket, trace_name, source, name, scores, numeric_scores, value_sum, judged, passed)
       SELECT project_id, bucket, trace_name, source, name, count(*)::int, count(number)::int, coalesce(sum(number), 0), count(pass)::int, (count(*) FILTER (WHERE pass))::int
         FROM c GROUP BY 1, 2, 3, 4, 5`,
      params,
    );
    // One row per unpriced type of each span that has any; the bucket's other spans are filtered out before the unnest.
    await m.query(
      `WITH b AS (${BUCKETS})
       INSERT INTO unpriced_stats_5m (project_id, bucket, model, usage_type, spans, first_seen, last_seen)
       SELECT b.project_id, b.bucket, ${dimension('s.model')}, u.usage_type, count(*)::int, min(s.start_time), max(s.start_time)
         FROM b JOIN spans s ON s.project_id = b.project_id AND ${IN_BUCKET('s.start_time')} AND cardinality(s.unpriced_usage) > 0
         CROSS JOIN LATERAL unnest(s.unpriced_usage) AS u (usage_type)
        GROUP BY 1, 2, 3, 4`,
      params,
    );
    await m.query(`DELETE FROM stats_5m_dirty d USING (${BUCKETS}) b WHERE d.project_id = b.project_id AND d.bucket = b.bucket`, params);
    return buckets.length;
  });
}

/** Drops the oldest dirty overview mark without recounting: for a bucket whose recount keeps failing. */
export async function discardOldestDirtyOverviewBucket(ds: DataSource, pace: RecountPace = RECOUNT_AT_ONCE): Promise<Bucket | null> {
  const rows = returnedRows<Bucket>(
    await ds.query(
      `DELETE FROM stats_5m_dirty WHERE ctid = (SELECT d.ctid FROM ${DUE_OVERVIEW_MARKS('$1', '$2')} ORDER BY d.bucket LIMIT 1 FOR UPDATE OF d SKIP LOCKED)
       RETURNING project_id, bucket`,
      [pace.floorMs, pace.msPerRow],
    ),
  );
  return rows[0] ?? null;
}

/** Whether a project has an overview bucket in [from, to) still waiting for its recount. */
export async function hasDirtyOverviewBucket(db: Db, projectId: string, from: Date, to: Date): Promise<boolean> {
  const [row] = await db.query(
    'SELECT EXISTS (SELECT 1 FROM stats_5m_dirty WHERE project_id = $1 AND bucket >= $2 AND bucket < $3) AS dirty',
    [projectId, from, to],
  );
  return row.dirty;
}

interface SpanSumsRow {
  g: string;
  calls: number;
  errors: number;
  cost: number;
  prompt: number;
  completion: number;
  total: number;
  unpriced: number;
}

/**
 * Span stats of a project's buckets in [from, to), summed per group of each of `groups` (SQL
 * expressions over span_stats_5m's columns, never null), histograms merged in SQL. Every
 * grouping comes from one read of the rows (`GROUPING SETS`): the overview's four groupings
 * read the same rows four times each for sums and histograms, 30 days of them at a million
 * spans being 270,000 rows (docs/BENCHMARKS.md, "One machine's ceiling").
 */
async function groupedSpanSums(db: Db, groups: string[], where: string, params: unknown[]): Promise<Map<string, SpanSums>[]> {
  const columns = groups.map((g, i) => `(${g})::text AS g${i}`).join(', ');
  const names = groups.map((_, i) => `g${i}`).join(', ');
  // GROUPING(g0, …) has a bit per grouping left out, the first the highest: the grouping of `i` is every bit but its own.
  const all = (1 << groups.length) - 1;
  const groupOf = (set: number) => groups.findIndex((_, i) => set === all - (1 << (groups.length - 1 - i)));
  const rows: (SpanSumsRow & { set: number })[] = await db.query(
    `SELECT GROUPING(${names}) AS set, coalesce(${names}) AS g, sum(calls)::float8 AS calls, sum(errors)::float8 AS errors, sum(cost_usd) AS cost,
            sum(prompt_tokens)::float8 AS prompt, sum(completion_tokens)::float8 AS completion, sum(total_tokens)::float8 AS total,
            sum(unpriced_calls)::float8 AS unpriced
       FROM (SELECT ${columns}, calls, errors, cost_usd, prompt_tokens, completion_tokens, total_tokens, unpriced_calls
               FROM span_stats_5m WHERE project_id = $1 AND bucket >= $2 AND bucket < $3 ${where}) x
      GROUP BY GROUPING SETS (${groups.map((_, i) => `(g${i})`).join(', ')})`,
    params,
  );
  const sums = groups.map(() => new Map<string, SpanSums>());
  for (const r of rows) {
    sums[groupOf(r.set)].set(r.g, {
      calls: r.calls,
      errors: r.errors,
      costUsd: r.cost,
      promptTokens: r.prompt,
      completionTokens: r.completion,
      totalTokens: r.total,
      unpricedCalls: r.unpriced,
      latency: {} as LatencyHistogram,
    });
  }
  const hist: { set: number; g: string; k: string; n: number }[] = await db.query(
    `SELECT GROUPING(${names}) AS set, coalesce(${names}) AS g, k, sum(n)::float8 AS n
       FROM (SELECT ${columns}, h.key AS k, h.value::int AS n FROM span_stats_5m, jsonb_each_text(latency_hist) h
              WHERE project_id = $1 AND bucket >= $2 AND bucket < $3 ${where}) x
      GROUP BY GROUPING SETS (${groups.map((_, i) => `(g${i}, k)`).join(', ')})`,
    params,
  );
  for (const h of hist) {
    const s = sums[groupOf(h.set)].get(h.g);
    if (s) s.latency[h.k] = h.n;
  }
  return sums;
}

async function groupedScoreSums(db: Db, where: string, params: unknown[]): Promise<(ScoreSums & { name: string; source: string })[]> {
  const rows: { name: string; source: string; scores: number; numeric: number; value_sum: number; judged: number; passed: number }[] =
    await db.query(
      `SELECT name, source, sum(scores)::float8 AS scores, sum(numeric_scores)::float8 AS numeric, sum(value_sum) AS value_sum,
            sum(judged)::float8 AS judged, sum(passed)::float8 AS passed
       FROM score_stats_5m WHERE project_id = $1 AND bucket >= $2 AND bucket < $3 ${where} GROUP BY name, source ORDER BY name, source`,
      params,
    );
  return rows.map((r) => ({
    name: r.name,
    source: r.source,
    scores: r.scores,
    numericScores: r.numeric,
    valueSum: r.value_sum,
    judged: r.judged,
    passed: r.passed,
  }));
}

/** Everything the overview shows of a project's buckets in [from, to), series points `bucketSeconds` wide from the epoch. */
export async function readOverviewSums(db: Db, projectId: string, from: Date, to: Date, bucketSeconds: number): Promise<OverviewSums> {
  const range = [projectId, from, to];
  const point = `extract(epoch FROM date_bin(make_interval(secs => ${Number(bucketSeconds)}), bucket, timestamptz '1970-01-01T00:00:00Z'))::bigint * 1000`;
  // The models without the spans of none (stored as '').
  const [series, withNoModel, spanTypes, operations] = await groupedSpanSums(
    db,
    [point, 'model', 'span_type', 'jsonb_build_array(operation, span_type)'],
    '',
    range,
  );
  const models = new Map([...withNoModel].filter(([model]) => model !== ''));
  const traces: { t: string; traces: number }[] = await db.query(
    `SELECT ${point} AS t, sum(traces)::float8 AS traces FROM trace_stats_5m WHERE project_id = $1 AND bucket >= $2 AND bucket < $3 GROUP BY 1`,
    range,
  );
  return {
    series: [...series].map(([t, s]) => ({ t: Number(t), ...s })),
    traces: traces.map((r) => ({ t: Number(r.t), traces: r.traces })),
    models: [...models].map(([model, s]) => ({ model, ...s })),
    spanTypes: [...spanTypes].map(([spanType, s]) => ({ spanType, ...s })),
    operations: [...operations].map(([key, s]) => {
      const [operation, spanType] = JSON.parse(key) as [string, string];
      return { operation, spanType, ...s };
    }),
    scores: await groupedScoreSums(db, '', range),
  };
}

/** A monitor's window: span sums and score sums of the buckets in [from, to) that match the filter. */
export async function readWindowSums(
  db: Db,
  projectId: string,
  from: Date,
  to: Date,
  filter: StatsFilter,
): Promise<{ spans: SpanSums | null; scores: (ScoreSums & { name: string; source: string })[] }> {
  const params = [projectId, from, to, filter.model ?? null, filter.spanType ?? null, filter.traceName ?? null, filter.operation ?? null];
  const [spans] = await groupedSpanSums(
    db,
    [`''`],
    `AND ($4::text IS NULL OR model = $4) AND ($5::text IS NULL OR span_type = $5) AND ($6::text IS NULL OR trace_name = $6) AND ($7::text IS NULL OR lower(operation) = lower($7))`,
    params,
  );
  const scores = await groupedScoreSums(db, `AND ($4::text IS NULL OR trace_name = $4)`, [projectId, from, to, filter.traceName ?? null]);
  return { spans: spans.get('') ?? null, scores };
}

/**
 * A project's unpriced usage in the buckets of [from, to) (all of them without bounds): per
 * model and usage type, the spans and the first and last start. Sums the 5-minute buckets, never
 * the spans.
 */
export async function readUnpricedUsage(db: Db, projectId: string, from: Date | null, to: Date | null): Promise<UnpricedUsageRow[]> {
  const rows: { model: string; usage_type: string; spans: number; first_seen: Date; last_seen: Date }[] = await db.query(
    `SELECT model, usage_type, sum(spans)::float8 AS spans, min(first_seen) AS first_seen, max(last_seen) AS last_seen
       FROM unpriced_stats_5m WHERE project_id = $1 AND ($2::timestamptz IS NULL OR bucket >= $2) AND ($3::timestamptz IS NULL OR bucket < $3)
      GROUP BY 1, 2`,
    [projectId, from, to],
  );
  const spans: { model: string; spans: number }[] = await db.query(
    `SELECT model, sum(unpriced_calls)::float8 AS spans
       FROM span_stats_5m WHERE project_id = $1 AND ($2::timestamptz IS NULL OR bucket >= $2) AND ($3::timestamptz IS NULL OR bucket < $3)
        AND unpriced_calls > 0
      GROUP BY 1`,
    [projectId, from, to],
  );
  const spansOf = new Map(spans.map((r) => [r.model, r.spans]));
  return rows.map((r) => ({
    model: r.model,
    usageType: r.usage_type,
    typeSpans: r.spans,
    modelSpans: spansOf.get(r.model) ?? r.spans,
    firstSeen: r.first_seen.toISOString(),
    lastSeen: r.last_seen.toISOString(),
  }));
}
