import type { DataSource } from 'typeorm';
import { type GroupFilter, TELEMETRY_RANGES, TRACE_LIST_LIMITS, type TracePageQuery } from '@app/domain';
import { type KeysetOrder, keyset } from '../keyset';
import { type PageKeys, WALK_TRACES_PER_GROUP, pageKeysFromNewestTraces } from './trace-group-candidates';
import { GROUP_COLUMN, type GroupKind, groupPageFrom } from './trace-group-sql';
import { SCORE_NUMBER, type TraceRow, traceSelect } from './trace-query';

export type { GroupKind } from './trace-group-sql';

/** One session or user with its totals, computed on read from its traces and their spans. */
export interface GroupRow {
  key: string;
  first_ts: Date;
  last_ts: Date;
  /** `last_ts` as fixed-width UTC ISO with microseconds: a cursor's position, exact. */
  last_ts_text: string;
  trace_count: number;
  /** Distinct sessions of a user; distinct users of a session (up to `GROUP_USERS_SHOWN` listed in `user_ids`). */
  session_count: number | null;
  user_ids: string[] | null;
  span_count: number;
  total_tokens: number | null;
  total_cost: number | null;
  /** From the first trace's time to the last span's end (or the last trace's time). */
  duration_ms: number | null;
}

export interface GroupScoreRow {
  key: string;
  name: string | null;
  source: string | null;
  count: number;
  mean: number | null;
}

export type SessionTraceRow = TraceRow & { cursor_ts: string };

const GROUP_USERS_SHOWN = 5;
/** A session's traces in time order, then id. */
const SESSION_TRACES_ORDER: KeysetOrder = {
  columns: [
    { sql: 't."timestamp"', type: 'timestamptz' },
    { sql: 't.id', type: 'uuid' },
  ],
};
const MICRO_ISO = (expr: string) => `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Sessions and users of a project (issue 26), as lists and one at a time. The groups of a page
 * are found from the traces alone: from the newest traces when they tell them (issue 33), else
 * by grouping every trace on the index `(project_id, <column>, "timestamp")` (migration
 * SessionUserIndexes); only the page's groups then read their spans and scores.
 */
export class TraceGroupQueries {
  constructor(private readonly db: DataSource) {}

  /**
   * A page of groups, the most recently active first (last trace time, then id, descending).
   * Its groups come from the newest traces when they can (pageKeysFromNewestTraces), so a page
   * reads about as many traces as its groups hold, however many the project has; else from
   * every trace of the project (`listFromEveryTrace`), as a session list by user always does:
   * the user's sessions bound it.
   */
  async list(kind: GroupKind, projectId: string, f: GroupFilter): Promise<GroupRow[]> {
    const keys = f.userId === undefined ? await this.newestPageKeys(kind, projectId, f) : null;
    if (keys === null) return this.listFromEveryTrace(kind, projectId, f);
    return keys.length ? this.listFromEveryTrace(kind, projectId, f, keys) : [];
  }

  private async newestPageKeys(kind: GroupKind, projectId: string, f: GroupFilter): Promise<PageKeys> {
    for (const perGroup of WALK_TRACES_PER_GROUP) {
      const keys = await pageKeysFromNewestTraces(this.db, kind, projectId, f, perGroup * f.limit);
      if (keys !== null) return keys;
    }
    return null;
  }

  /**
   * A page of groups found by grouping every trace of the project, or only those of the groups
   * `keys` when given (a list's page, or one group): the definition the faster path must match.
   */
  listFromEveryTrace(kind: GroupKind, projectId: string, f: GroupFilter, keys?: string[]): Promise<GroupRow[]> {
    const col = GROUP_COLUMN[kind];
    const params: unknown[] = [projectId];
    const only = keys === undefined ? undefined : `t.${col} = ANY($${params.push(keys)}::text[])`;
    const from = groupPageFrom(kind, f, params, only);
    const others = kind === 'user' ? 'count(DISTINCT t.session_id)::int' : 'NULL::int';
    return this.db.query(
      `WITH g AS (
         SELECT t.${col} AS key, min(t."timestamp") AS first_ts, max(t."timestamp") AS last_ts, count(*)::int AS trace_count, ${others} AS session_count
           ${from}
       )
       SELECT g.key, g.first_ts, g.last_ts, ${MICRO_ISO('g.last_ts')} AS last_ts_text, g.trace_count, g.session_count,
              ${kind === 'session' ? 'u.user_ids' : 'NULL::text[] AS user_ids'},
              coalesce(a.span_count, 0) AS span_count, a.total_tokens, a.total_cost,
              (extract(epoch FROM greatest(g.last_ts, a.last_end) - g.first_ts) * 1000)::float8 AS duration_ms
         FROM g
         LEFT JOIN LATERAL (
           SELECT count(*)::int AS span_count,
                  sum(coalesce(s.total_tokens, s.prompt_tokens + s.completion_tokens, s.prompt_tokens, s.completion_tokens))::float8 AS total_tokens,
                  round((sum(s.cost) FILTER (WHERE s.cost <= ${TELEMETRY_RANGES.spanCost.max}))::numeric, 12)::float8 AS total_cost,
                  max(coalesce(s.end_time, s.start_time)) AS last_end
             FROM traces t2 JOIN spans s ON s.project_id = t2.project_id AND s.trace_id = t2.id
            WHERE t2.project_id = $1 AND t2.${col} = g.key
         ) a ON true
         ${
           kind === 'session'
             ? `LEFT JOIN LATERAL (
           SELECT array_agg(d.user_id ORDER BY d.user_id) AS user_ids
             FROM (SELECT DISTINCT t3.user_id FROM traces t3
                    WHERE t3.project_id = $1 AND t3.session_id = g.key AND t3.user_id IS NOT NULL
                    ORDER BY t3.user_id LIMIT ${GROUP_USERS_SHOWN}) d
         ) u ON true`
             : ''
         }
        ORDER BY g.last_ts DESC, g.key DESC`,
      params,
    );
  }

  /** One group's totals, or null when the project has no trace in it. */
  async findOne(kind: GroupKind, projectId: string, key: string): Promise<GroupRow | null> {
    const rows = await this.listFromEveryTrace(kind, projectId, { limit: 1 }, [key]);
    return rows[0] ?? null;
  }

  /** The groups' scores by name and source: how many, and the mean of the numeric and boolean (1/0) ones. */
  scoreSummaries(kind: GroupKind, projectId: string, keys: string[]): Promise<GroupScoreRow[]> {
    const col = GROUP_COLUMN[kind];
    return this.db.query(
      `SELECT t.${col} AS key, c.name, c.source, count(*)::int AS count, avg(${SCORE_NUMBER}) AS mean
         FROM traces t JOIN scores c ON c.project_id = t.project_id AND c.trace_id = t.id
        WHERE t.project_id = $1 AND t.${col} = ANY($2::text[])
        GROUP BY t.${col}, c.name, c.source
        ORDER BY c.name, c.source`,
      [projectId, keys],
    );
  }

  /** A page of one session's traces in time order (then id), each with its input and output. */
  sessionTraces(projectId: string, sessionId: string, q: TracePageQuery): Promise<SessionTraceRow[]> {
    // A page of 100 traces must not carry 100 inputs of 5 MB: fields are cut as on a trace list page.
    const params: unknown[] = [projectId, TRACE_LIST_LIMITS.fieldBytes, sessionId];
    const page = keyset(SESSION_TRACES_ORDER, q.after, q.limit, params);
    return this.db.query(
      `SELECT page.*, ${MICRO_ISO('page."timestamp"')} AS cursor_ts
         FROM (${traceSelect('$2::int')} WHERE t.project_id = $1 AND t.session_id = $3 AND ${page.after}
               ORDER BY ${page.orderBy} ${page.limit}) page
        ORDER BY page."timestamp", page.id`,
      params,
    );
  }
}
