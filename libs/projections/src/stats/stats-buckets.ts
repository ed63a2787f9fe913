import { latencyBucketSql } from '@app/domain';

/** The overview stats' bucket: 5 minutes of event time, in UTC, from the epoch. */
export const STATS_BUCKET_SECONDS = 300;

/** The 5-minute bucket a timestamptz expression falls in, in SQL. */
export const statsBucketOf = (column: string): string => `date_bin('5 minutes', ${column}, timestamptz '1970-01-01T00:00:00Z')`;

/**
 * The overview stats' roll-up: the 5-minute stats summed per UTC hour from the epoch (the
 * `*_stats_1h` tables), which long ranges read instead of the hour's twelve buckets.
 */
export const STATS_HOUR_SECONDS = 3600;

/** The hour a timestamptz expression falls in, in SQL. */
export const statsHourOf = (column: string): string =>
  `date_bin(interval '${STATS_HOUR_SECONDS} seconds', ${column}, timestamptz '1970-01-01T00:00:00Z')`;

/** A bound of a read range; the infinities for a read without bounds. */
export type StatsBound = Date | '-infinity' | 'infinity';

/**
 * A range [from, to) of 5-minute buckets as read with the roll-up: the whole hours of the range
 * [hoursFrom, hoursTo) from the hourly stats, the buckets of [from, hoursFrom) and [hoursTo, to)
 * from the 5-minute ones. Without any whole hour, or when `hours` is false, all of it is read
 * from the 5-minute stats (hoursFrom = hoursTo = to). A null bound is unbounded.
 */
export function splitAtHours(from: Date | null, to: Date | null, hours: boolean): [StatsBound, StatsBound, StatsBound, StatsBound] {
  const start = from ?? '-infinity';
  const end = to ?? 'infinity';
  const hourMs = STATS_HOUR_SECONDS * 1000;
  const hoursFrom = from ? new Date(Math.ceil(from.getTime() / hourMs) * hourMs) : '-infinity';
  const hoursTo = to ? new Date(Math.floor(to.getTime() / hourMs) * hourMs) : 'infinity';
  if (!hours || (hoursFrom instanceof Date && hoursTo instanceof Date && hoursFrom >= hoursTo)) return [start, end, end, end];
  return [start, hoursFrom, hoursTo, end];
}

/** A score's event time: its own timestamp, else when it was first stored. */
export const SCORE_TIME = (alias: string): string => `coalesce(${alias}."timestamp", ${alias}.created_at)`;

/**
 * Whether a score says something about the output: an evaluator's error result (SPEC 6.1 rule 2,
 * a webhook that gave no valid answer, marked `metadata.error: true`) does not, so means, pass
 * rates (monitors) and routing leave it out; it still counts as a score.
 */
const NOT_AN_ERROR = (metadata: string): string => `coalesce(${metadata} -> 'error', 'false'::jsonb) <> 'true'::jsonb`;

/** A score's value as a number (numeric, or a boolean as 0/1), else null (an error result too); `value` and `metadata` are the jsonb columns. */
export const SCORE_NUMBER_SQL = (value: string, metadata: string): string =>
  `CASE WHEN ${NOT_AN_ERROR(metadata)} THEN CASE jsonb_typeof(${value}) WHEN 'number' THEN (${value} #>> '{}')::float8 WHEN 'boolean' THEN (${value} #>> '{}')::boolean::int::float8 END END`;

/** Whether a score passed: its metadata's boolean `pass`, else a boolean value; null when it says neither or is an error result. */
export const SCORE_PASS_SQL = (value: string, metadata: string): string =>
  `CASE WHEN NOT ${NOT_AN_ERROR(metadata)} THEN NULL
        WHEN jsonb_typeof(${metadata} -> 'pass') = 'boolean' THEN (${metadata} ->> 'pass')::boolean
        WHEN jsonb_typeof(${value}) = 'boolean' THEN (${value} #>> '{}')::boolean END`;

/**
 * SQL aggregate: the latency histogram (`{bucket: calls}`, `'{}'` for none) of a group's rows,
 * `ms` their latency (null: untimed), in the same `GROUP BY` as the group's sums. A histogram
 * grouped apart and joined back to the sums by the group's keys was a nested loop under
 * RANGE_RECOUNT_SETTINGS, every group against every group: on the ceiling's data (857,000
 * spans) 19 million comparisons, 8 of the 9 s an overview batch took.
 */
export const LATENCY_HIST_AGG = (ms: string): string =>
  `coalesce((SELECT jsonb_object_agg(k, n) FROM (SELECT k, count(*)::int AS n FROM unnest(array_agg(${latencyBucketSql(ms)}) FILTER (WHERE ${ms} IS NOT NULL)) AS k GROUP BY k) x), '{}')`;

/**
 * Dimension values (span type, model, trace name, score name) are kept to this many characters
 * in the overview stats, so a long name cannot make a key too wide for its index.
 */
export const STATS_DIMENSION_LENGTH = 256;

/**
 * When a marked bucket is due for its recount (migration StatsMarkTimes): its first mark at least
 * `floorMs` old, and at least `msPerRow` per row the bucket counted last time, because a recount
 * reads the whole bucket while the batches writing into it wait and a backlog's drain marks the
 * same bucket in every batch. Rebuilds recount at once (both 0).
 */
export interface RecountPace {
  floorMs: number;
  msPerRow: number;
}

export const RECOUNT_AT_ONCE: RecountPace = { floorMs: 0, msPerRow: 0 };

/**
 * SQL: the mark `mark` is due, its bucket having counted `rows` (a scalar subquery; null: nothing
 * yet), with the pace in parameters `floor` and `perRow`. At no cost per row (a rebuild's pace)
 * `rows` is never evaluated: reading every mark's bucket for each batch was a tenth of a whole
 * recount (24 s of 441 s for the overview's marks at 857,000 spans).
 */
export const RECOUNT_DUE = (mark: string, rows: string, floor: string, perRow: string) =>
  `${mark}.marked_at <= now() - ${floor}::float8 * interval '1 millisecond'
    AND (${perRow}::float8 = 0 OR ${mark}.marked_at <= now() - coalesce(${rows}, 0) * ${perRow}::float8 * interval '1 millisecond')`;

/**
 * Settings for a recount's statements that read each bucket's rows through its time range
 * (`rows.start_time >= b.bucket AND < b.bucket + width`), for the rest of its transaction. The
 * planner cannot tell that a bucket's range holds a few rows (a range between parameters is
 * estimated at 0.5 % of the table), and the buckets' project is one value: it hashed the
 * buckets on the project and compared every row of the table with every bucket. At a million
 * spans, 200 overview buckets took 14.5 s that way and 0.2 s through the `(project_id,
 * start_time)` index (docs/BENCHMARKS.md, "One machine's ceiling"). Without hash and merge
 * joins each bucket reads its range by index. Without sequential scans too: with a filter it
 * cannot estimate either (`cardinality(unpriced_usage) > 0`), the planner could read the whole
 * span table once per batch and compare it with the buckets (0.86 s for a batch at 857,000
 * spans, 0.03 s by index), so a rebuild's recount grew with the rows times the batches. Every
 * statement of a recount runs with these: the scores of a batch's calls are found by index too
 * (migration ScoreSpanIndex).
 */
export const RANGE_RECOUNT_SETTINGS = 'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_seqscan = off';
