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
  STATS_HOUR_SECONDS,
  type StatsBound,
  splitAtHours,
  statsBucketOf,
  statsHourOf,
} from './stats-buckets';
import { inOneSnapshot } from './one-snapshot';

type Db = Pick<DataSource, 'query'>;

/** The 5-minute stats, each recounted whole per bucket. */
const OVERVIEW_STATS_TABLES = ['span_stats_5m', 'trace_stats_5m', 'score_stats_5m', 'unpriced_stats_5m'];
/**
 * Their hourly roll-ups, each recomputed whole per hour from the 5-minute stats; `bucket` is the
 * hour's start. The span stats' drop the trace name, which no grouping of the overview uses: a
 * tenth of the rows at the bench's ten trace names.
 */
const HOURLY_OF: Record<string, string> = {
  span_stats_5m: 'span_stats_1h',
  trace_stats_5m: 'trace_stats_1h',
  score_stats_5m: 'score_stats_1h',
  unpriced_stats_5m: 'unpriced_stats_1h',
};

/** A stored cost beyond this is left out of sums, as in model_stats. */
const SUMMABLE_COST = 1e12;
const dimension = (sql: string) => `left(coalesce(${sql}, ''), ${STATS_DIMENSION_LENGTH})`;

/**
 * Marks every overview bucket with rows or stats for recount (see markAllModelStatsDirty, which
 * calls it), and the first bucket of every hour with roll-ups, so an hour left without 5-minute
 * stats is emptied too.
 */
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
     ${Object.values(HOURLY_OF)
       .map((table) => `UNION SELECT project_id, bucket FROM ${table}`)
       .join(' ')}
     ON CONFLICT DO NOTHING`,
  );
}

interface Bucket {
  project_id: string;
  bucket: Date;
}

const BUCKETS = `SELECT * FROM unnest($1::uuid[], $2::timestamptz[]) AS b (project_id, bucket)`;
const IN_BUCKET = (column: string) => `${column} >= b.bucket AND ${column} < b.bucket + interval '5 minutes'`;
/**
 * `alias`: the `columns` of `table`'s rows in bucket `b` whose time is `time`, read bucket by
 * bucket through the table's `(project_id, <time>)` index. The subquery is fenced (`OFFSET 0`),
 * so it is planned for one bucket: as a join, the planner took each 5-minute range for 0.5 % of
 * the table and, with a batch of 200 buckets at ten million spans, read the project's every span
 * once and compared it with every bucket, over 100 s a batch (docs/BENCHMARKS.md, "One machine's
 * ceiling").
 */
const ROWS_IN_BUCKET = (table: string, alias: string, time: string, columns: string[]) =>
  `CROSS JOIN LATERAL (SELECT ${columns.map((c) => `${alias}.${c}`).join(', ')} FROM ${table} ${alias}
                        WHERE ${alias}.project_id = b.project_id AND ${IN_BUCKET(time)} OFFSET 0) ${alias}`;
const SPAN_STATS_COLUMNS = [
  'project_id',
  'trace_id',
  'type',
  'model',
  'operation',
  'level',
  'unpriced_usage',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost',
  'start_time',
  'end_time',
];

/** `x`: the 5-minute rows of `table` of the (project, hour) the buckets in parameters $1 and $2 are in, each with its `hour`. */
const HOURS_OF_BUCKETS = (table: string) =>
  `WITH h AS (SELECT DISTINCT b.project_id, ${statsHourOf('b.bucket')} AS hour FROM (${BUCKETS}) b),
   x AS (SELECT h.hour, x.* FROM h JOIN ${table} x ON x.project_id = h.project_id AND x.bucket >= h.hour AND x.bucket < h.hour + interval '${STATS_HOUR_SECONDS} seconds')`;

/** The lock of one (project, hour) of the roll-ups, a 64-bit key (pg_advisory_xact_lock). */
const HOUR_LOCK = (project: string, hour: string) =>
  `hashtextextended('spanlog:stats-hour:' || ${project} || ':' || extract(epoch FROM ${hour}), 0)`;

/** Each roll-up's rows of the hours in `x` (HOURS_OF_BUCKETS), summed from the hours' 5-minute rows. */
const HOURLY_SUMS: Record<string, string> = {
  span_stats_1h: `INSERT INTO span_stats_1h (project_id, bucket, span_type, model, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens,
                               total_tokens, unpriced_calls)
     SELECT a.project_id, a.hour, a.span_type, a.model, a.operation, a.calls, a.errors, coalesce(l.latency_hist, '{}'), a.cost_usd, a.prompt_tokens,
            a.completion_tokens, a.total_tokens, a.unpriced_calls
       FROM (SELECT project_id, hour, span_type, model, operation, sum(calls)::int AS calls, sum(errors)::int AS errors, sum(cost_usd) AS cost_usd,
                    sum(prompt_tokens)::bigint AS prompt_tokens, sum(completion_tokens)::bigint AS completion_tokens, sum(total_tokens)::bigint AS total_tokens,
                    sum(unpriced_calls)::int AS unpriced_calls
               FROM x GROUP BY 1, 2, 3, 4, 5) a
       LEFT JOIN (SELECT project_id, hour, span_type, model, operation, jsonb_object_agg(k, n) AS latency_hist
                    FROM (SELECT project_id, hour, span_type, model, operation, e.key AS k, sum(e.value::int)::int AS n
                            FROM x, jsonb_each_text(x.latency_hist) e GROUP BY 1, 2, 3, 4, 5, 6) y
                   GROUP BY 1, 2, 3, 4, 5) l USING (project_id, hour, span_type, model, operation)`,
  trace_stats_1h: `INSERT INTO trace_stats_1h (project_id, bucket, traces) SELECT project_id, hour, sum(traces)::int FROM x GROUP BY 1, 2`,
  score_stats_1h: `INSERT INTO score_stats_1h (project_id, bucket, trace_name, source, name, scores, numeric_scores, value_sum, judged, passed)
     SELECT project_id, hour, trace_name, source, name, sum(scores)::int, sum(numeric_scores)::int, sum(value_sum), sum(judged)::int, sum(passed)::int
       FROM x GROUP BY 1, 2, 3, 4, 5`,
  unpriced_stats_1h: `INSERT INTO unpriced_stats_1h (project_id, bucket, model, usage_type, spans, first_seen, last_seen)
     SELECT project_id, hour, model, usage_type, sum(spans)::int, min(first_seen), max(last_seen) FROM x GROUP BY 1, 2, 3, 4`,
};

/**
 * Recomputes whole, from their 5-minute stats, the roll-ups of the hours the recounted buckets
 * (parameters $1 and $2) are in, after their 5-minute stats were written in the same transaction.
 * Two recounts of buckets of one hour take turns on the hour's lock (in key order, so any two
 * take them in the same order): the second's statements, each with a snapshot taken after the
 * first committed, see both recounts' 5-minute rows.
 */
async function recountHours(m: Db, params: unknown[]): Promise<void> {
  await m.query(
    `SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT ${HOUR_LOCK('b.project_id', statsHourOf('b.bucket'))} AS k FROM (${BUCKETS}) b ORDER BY k) l`,
    params,
  );
  for (const [fiveMinutes, hourly] of Object.entries(HOURLY_OF)) {
    await m.query(
      `DELETE FROM ${hourly} r USING (SELECT DISTINCT b.project_id, ${statsHourOf('b.bucket')} AS hour FROM (${BUCKETS}) b) h
        WHERE r.project_id = h.project_id AND r.bucket = h.hour`,
      params,
    );
    await m.query(`${HOURS_OF_BUCKETS(fiveMinutes)} ${HOURLY_SUMS[hourly]}`, params);
  }
}

/** `d`, the 5-minute marks due at the pace in parameters `floor` and `perRow`, a bucket's rows being its spans. */
const DUE_OVERVIEW_MARKS = (floor: string, perRow: string) =>
  `stats_5m_dirty d
    WHERE ${RECOUNT_DUE('d', '(SELECT sum(x.calls) FROM span_stats_5m x WHERE x.project_id = d.project_id AND x.bucket = d.bucket)', floor, perRow)}`;

/**
 * Recounts up to `limit` dirty overview buckets from the rows, in one transaction, replacing
 * their stats whole, and their hours' roll-ups from the 5-minute stats (`recountHours`);
 * instances share the work (SKIP LOCKED). A batch writing into a bucket being recounted waits
 * for the recount and marks it again, so no write is missed. Only buckets due at `pace` are
 * taken.
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
    // The span stats and the unpriced usage from one read of the bucket's spans: a hot bucket's rows
    // are mostly read from outside Postgres's buffers, and a second read was a quarter of the recount.
    await m.query(
      `WITH b AS (${BUCKETS}),
       s AS (
         SELECT b.project_id, b.bucket, ${dimension('s.type')} AS span_type, ${dimension('s.model')} AS model, ${dimension('t.name')} AS trace_name,
                ${dimension('s.operation')} AS operation, s.level, s.unpriced_usage, s.start_time, s.prompt_tokens, s.completion_tokens, coalesce(s.total_tokens, coalesce(s.prompt_tokens, 0) + coalesce(s.completion_tokens, 0)) AS total_tokens,
                CASE WHEN abs(s.cost) < ${SUMMABLE_COST} THEN s.cost END AS cost,
                CASE WHEN s.end_time >= s.start_time THEN extract(epoch FROM s.end_time - s.start_time)::float8 * 1000 END AS ms
           FROM b ${ROWS_IN_BUCKET('spans', 's', 's.start_time', SPAN_STATS_COLUMNS)}
           LEFT JOIN traces t ON t.project_id = s.project_id AND t.id = s.trace_id
       ),
       agg AS (
         SELECT project_id, bucket, span_type, model, trace_name, operation, count(*)::int AS calls, (count(*) FILTER (WHERE level = 'ERROR'))::int AS errors,
                ${LATENCY_HIST_AGG('ms')} AS latency_hist, coalesce(sum(cost), 0) AS cost_usd, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
                coalesce(sum(completion_tokens), 0) AS completion_tokens, coalesce(sum(total_tokens), 0) AS total_tokens,
                (count(*) FILTER (WHERE cardinality(unpriced_usage) > 0))::int AS unpriced_calls
           FROM s GROUP BY 1, 2, 3, 4, 5, 6
       ),
       -- One row per unpriced type of each span (a span without any unnests to none).
       unpriced AS (
         INSERT INTO unpriced_stats_5m (project_id, bucket, model, usage_type, spans, first_seen, last_seen)
         SELECT s.project_id, s.bucket, s.model, u.usage_type, count(*)::int, min(s.start_time), max(s.start_time)
           FROM s CROSS JOIN LATERAL unnest(s.unpriced_usage) AS u (usage_type)
          GROUP BY 1, 2, 3, 4
       )
       INSERT INTO span_stats_5m (project_id, bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens, unpriced_calls)
       SELECT project_id, bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens, unpriced_calls
         FROM agg`,
      params,
    );
    await m.query(
      `WITH b AS (${BUCKETS})
       INSERT INTO trace_stats_5m (project_id, bucket, traces)
       SELECT b.project_id, b.bucket, count(*)::int FROM b ${ROWS_IN_BUCKET('traces', 't', 't."timestamp"', ['id'])} GROUP BY 1, 2`,
      params,
    );
    await m.query(
      `WITH b AS (${BUCKETS}),
       c AS (
         SELECT b.project_id, b.bucket, ${dimension('t.name')} AS trace_name, coalesce(c.source, 'API') AS source, ${dimension('c.name')} AS name,
                ${SCORE_NUMBER_SQL('c.value', 'c.metadata')} AS number, ${SCORE_PASS_SQL('c.value', 'c.metadata')} AS pass
           FROM b ${ROWS_IN_BUCKET('scores', 'c', SCORE_TIME('c'), ['project_id', 'trace_id', 'source', 'name', 'value', 'metadata'])}
           LEFT JOIN traces t ON t.project_id = c.project_id AND t.id = c.trace_id
       )
       INSERT INTO score_stats_5m (project_id, bucket, trace_name, source, name, scores, numeric_scores, value_sum, judged, passed)
       SELECT project_id, bucket, trace_name, source, name, count(*)::int, count(number)::int, coalesce(sum(number), 0), count(pass)::int, (count(*) FILTER (WHERE pass))::int
         FROM c GROUP BY 1, 2, 3, 4, 5`,
      params,
    );
    await recountHours(m, params);
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

/** A project's read range: $1 the project, $2–$5 the range split at its whole hours (`splitAtHours`); a read's own parameters from $6. */
type RangeParams = [string, StatsBound, StatsBound, StatsBound, StatsBound, ...unknown[]];

/**
 * The rows of a 5-minute stats table over a read range (RangeParams): its own at the range's
 * edges and its roll-up's for the whole hours between, `select` and `where` applying to each,
 * `each` joined to each row (a set-returning function over its columns). Without `hours`, the
 * whole hours' 5-minute rows too, for a read by a dimension the roll-up does not keep.
 */
function rowsOverRange(fiveMinutes: string, select: string, { where = '', each = '', hours = true } = {}): string {
  const part = (table: string, from: string, to: string) =>
    `SELECT ${select} FROM ${table}${each} WHERE project_id = $1 AND bucket >= ${from}::timestamptz AND bucket < ${to}::timestamptz ${where}`;
  return [
    part(fiveMinutes, '$2', '$3'),
    part(hours ? HOURLY_OF[fiveMinutes] : fiveMinutes, '$3', '$4'),
    part(fiveMinutes, '$4', '$5'),
  ].join(' UNION ALL ');
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
async function groupedSpanSums(
  db: Db,
  groups: string[],
  where: string,
  params: RangeParams,
  hours = true,
): Promise<Map<string, SpanSums>[]> {
  const columns = groups.map((g, i) => `(${g})::text AS g${i}`).join(', ');
  const names = groups.map((_, i) => `g${i}`).join(', ');
  // GROUPING(g0, …) has a bit per grouping left out, the first the highest: the grouping of `i` is every bit but its own.
  const all = (1 << groups.length) - 1;
  const groupOf = (set: number) => groups.findIndex((_, i) => set === all - (1 << (groups.length - 1 - i)));
  const rows: (SpanSumsRow & { set: number })[] = await db.query(
    `SELECT GROUPING(${names}) AS set, coalesce(${names}) AS g, sum(calls)::float8 AS calls, sum(errors)::float8 AS errors, sum(cost_usd) AS cost,
            sum(prompt_tokens)::float8 AS prompt, sum(completion_tokens)::float8 AS completion, sum(total_tokens)::float8 AS total,
            sum(unpriced_calls)::float8 AS unpriced
       FROM (${rowsOverRange('span_stats_5m', `${columns}, calls, errors, cost_usd, prompt_tokens, completion_tokens, total_tokens, unpriced_calls`, { where, hours })}) x
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
  // A row per histogram key: summed by every group at once first, the grouping sets sort and hash a fraction of them.
  const hist: { set: number; g: string; k: string; n: number }[] = await db.query(
    `SELECT GROUPING(${names}) AS set, coalesce(${names}) AS g, k, sum(n)::float8 AS n
       FROM (SELECT ${names}, k, sum(n) AS n
               FROM (${rowsOverRange('span_stats_5m', `${columns}, h.key AS k, h.value::int AS n`, { where, hours, each: ', jsonb_each_text(latency_hist) h' })}) x
              GROUP BY ${names}, k) x
      GROUP BY GROUPING SETS (${groups.map((_, i) => `(g${i}, k)`).join(', ')})`,
    params,
  );
  for (const h of hist) {
    const s = sums[groupOf(h.set)].get(h.g);
    if (s) s.latency[h.k] = h.n;
  }
  return sums;
}

async function groupedScoreSums(db: Db, where: string, params: RangeParams): Promise<(ScoreSums & { name: string; source: string })[]> {
  const rows: { name: string; source: string; scores: number; numeric: number; value_sum: number; judged: number; passed: number }[] =
    await db.query(
      `SELECT name, source, sum(scores)::float8 AS scores, sum(numeric_scores)::float8 AS numeric, sum(value_sum) AS value_sum,
            sum(judged)::float8 AS judged, sum(passed)::float8 AS passed
       FROM (${rowsOverRange('score_stats_5m', 'name, source, scores, numeric_scores, value_sum, judged, passed', { where })}) x
      GROUP BY name, source ORDER BY name, source`,
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

/**
 * Everything the overview shows of a project's buckets in [from, to), series points
 * `bucketSeconds` wide from the epoch. Points of whole hours read the hourly roll-ups for the
 * range's whole hours (no hour then straddles two points), the same sums as their buckets'.
 */
export function readOverviewSums(ds: DataSource, projectId: string, from: Date, to: Date, bucketSeconds: number): Promise<OverviewSums> {
  return inOneSnapshot(ds, (db) => overviewSumsIn(db, projectId, from, to, bucketSeconds));
}

async function overviewSumsIn(db: Db, projectId: string, from: Date, to: Date, bucketSeconds: number): Promise<OverviewSums> {
  const range: RangeParams = [projectId, ...splitAtHours(from, to, bucketSeconds % STATS_HOUR_SECONDS === 0)];
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
    `SELECT ${point} AS t, sum(traces)::float8 AS traces FROM (${rowsOverRange('trace_stats_5m', 'bucket, traces')}) x GROUP BY 1`,
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

/** What a monitor reads of its window. */
type WindowSums = { spans: SpanSums | null; scores: (ScoreSums & { name: string; source: string })[] };

/** A monitor's window: span sums and score sums of the buckets in [from, to) that match the filter, its whole hours from the roll-ups. */
export function readWindowSums(ds: DataSource, projectId: string, from: Date, to: Date, filter: StatsFilter): Promise<WindowSums> {
  return inOneSnapshot(ds, (db) => windowSumsIn(db, projectId, from, to, filter));
}

async function windowSumsIn(db: Db, projectId: string, from: Date, to: Date, filter: StatsFilter): Promise<WindowSums> {
  const range: RangeParams = [projectId, ...splitAtHours(from, to, true)];
  // The hourly span stats have no trace name: a window by trace name sums its 5-minute span stats.
  const traceName = filter.traceName ?? null;
  const byTraceName = traceName !== null;
  const [spans] = await groupedSpanSums(
    db,
    [`''`],
    `AND ($6::text IS NULL OR model = $6) AND ($7::text IS NULL OR span_type = $7) AND ($8::text IS NULL OR lower(operation) = lower($8))
     ${byTraceName ? 'AND trace_name = $9' : ''}`,
    [...range, filter.model ?? null, filter.spanType ?? null, filter.operation ?? null, ...(byTraceName ? [traceName] : [])],
    !byTraceName,
  );
  const scores = await groupedScoreSums(db, `AND ($6::text IS NULL OR trace_name = $6)`, [...range, traceName]);
  return { spans: spans.get('') ?? null, scores };
}

/**
 * A project's unpriced usage in the buckets of [from, to) (all of them without bounds): per
 * model and usage type, the spans and the first and last start. Sums the stats, never the
 * spans: the hourly roll-ups for the range's whole hours, the 5-minute buckets at its edges.
 */
export function readUnpricedUsage(ds: DataSource, projectId: string, from: Date | null, to: Date | null): Promise<UnpricedUsageRow[]> {
  return inOneSnapshot(ds, (db) => unpricedUsageIn(db, projectId, from, to));
}

async function unpricedUsageIn(db: Db, projectId: string, from: Date | null, to: Date | null): Promise<UnpricedUsageRow[]> {
  const range: RangeParams = [projectId, ...splitAtHours(from, to, true)];
  const rows: { model: string; usage_type: string; spans: number; first_seen: Date; last_seen: Date }[] = await db.query(
    `SELECT model, usage_type, sum(spans)::float8 AS spans, min(first_seen) AS first_seen, max(last_seen) AS last_seen
       FROM (${rowsOverRange('unpriced_stats_5m', 'model, usage_type, spans, first_seen, last_seen')}) x
      GROUP BY 1, 2`,
    range,
  );
  const spans: { model: string; spans: number }[] = await db.query(
    `SELECT model, sum(unpriced_calls)::float8 AS spans FROM (${rowsOverRange('span_stats_5m', 'model, unpriced_calls', { where: 'AND unpriced_calls > 0' })}) x GROUP BY 1`,
    range,
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
