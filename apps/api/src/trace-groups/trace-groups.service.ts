import { Injectable } from '@nestjs/common';
import {
  type GroupFilter,
  TRACE_LIST_LIMITS,
  keysetPage,
  notFound,
  readGroupId,
  validateSessionListQuery,
  validateTracePageQuery,
  validateUserListQuery,
} from '@app/domain';
import { type GroupKind, type GroupRow, type GroupScoreRow, TraceGroupQueries, TraceQueries } from '@app/persistence';
import { toScoreSummaries, toTraceResponse } from '../traces/trace.mapper';

const iso = (d: Date) => d.toISOString();

function scoresByKey(rows: GroupScoreRow[]) {
  const byKey = new Map<string, { name: string | null; source: string | null; value: number | null; count: number }[]>();
  for (const row of rows)
    byKey.set(row.key, [...(byKey.get(row.key) ?? []), { name: row.name, source: row.source, value: row.mean, count: row.count }]);
  return byKey;
}

/** The totals every session and user shows, whether listed or read alone. */
function totals(row: GroupRow) {
  return {
    firstTraceAt: iso(row.first_ts),
    lastTraceAt: iso(row.last_ts),
    traceCount: row.trace_count,
    spanCount: row.span_count,
    durationMs: row.duration_ms,
    totalTokens: row.total_tokens,
    totalCost: row.total_cost,
  };
}

const toSession = (row: GroupRow) => ({ id: row.key, ...totals(row), userIds: row.user_ids ?? [] });
const toUser = (row: GroupRow) => ({ id: row.key, ...totals(row), sessionCount: row.session_count ?? 0 });

/**
 * Sessions and users of a project (docs/reading.md "Sessions and users"): every query's input is checked
 * by the domain's rules (REST's query text and the RPC's JSON alike), every page bounded.
 */
@Injectable()
export class TraceGroupsService {
  constructor(
    private readonly groups: TraceGroupQueries,
    private readonly traces: TraceQueries,
  ) {}

  async listSessions(projectId: string, query: unknown) {
    return this.page('session', projectId, validateSessionListQuery(query), toSession);
  }

  async listUsers(projectId: string, query: unknown) {
    return this.page('user', projectId, validateUserListQuery(query), toUser);
  }

  /** A session's totals, scores and one page of its traces in time order; `meta.nextCursor` pages on. */
  async getSession(projectId: string, rawId: unknown, query: unknown) {
    const id = readGroupId(rawId, 'id');
    const page = validateTracePageQuery(query);
    const row = await this.groups.findOne('session', projectId, id);
    if (!row) throw notFound(`session ${id} not found in this project`);
    const [scores, rows] = await Promise.all([
      this.groups.scoreSummaries('session', projectId, [id]),
      this.groups.sessionTraces(projectId, id, { ...page, limit: page.limit + 1 }),
    ]);
    const { data: shown, nextCursor } = keysetPage(rows, page.limit, (t) => [t.cursor_ts, t.id]);
    const traceScores = shown.length
      ? toScoreSummaries(
          await this.traces.scoreSummaries(
            projectId,
            shown.map((t) => t.id),
            TRACE_LIST_LIMITS.scoreGroups,
          ),
        )
      : new Map();
    return {
      ...toSession(row),
      scores: scoresByKey(scores).get(id) ?? [],
      traces: shown.map((t) => ({ ...toTraceResponse(t), scores: traceScores.get(t.id) ?? [] })),
      meta: { nextCursor },
    };
  }

  /** A user's totals and scores; their traces are the trace list filtered by `userId`. */
  async getUser(projectId: string, rawId: unknown) {
    const id = readGroupId(rawId, 'id');
    const row = await this.groups.findOne('user', projectId, id);
    if (!row) throw notFound(`user ${id} not found in this project`);
    const scores = await this.groups.scoreSummaries('user', projectId, [id]);
    return { ...toUser(row), scores: scoresByKey(scores).get(id) ?? [] };
  }

  private async page<T>(kind: GroupKind, projectId: string, filter: GroupFilter, shape: (row: GroupRow) => T) {
    const rows = await this.groups.list(kind, projectId, { ...filter, limit: filter.limit + 1 });
    const { data: shown, nextCursor } = keysetPage(rows, filter.limit, (row) => [row.last_ts_text, row.key]);
    const scores = shown.length
      ? scoresByKey(
          await this.groups.scoreSummaries(
            kind,
            projectId,
            shown.map((r) => r.key),
          ),
        )
      : new Map();
    return {
      data: shown.map((row) => ({ ...shape(row), scores: scores.get(row.key) ?? [] })),
      meta: { nextCursor },
    };
  }
}
