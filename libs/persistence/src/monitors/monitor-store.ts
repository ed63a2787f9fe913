import type { DataSource, EntityManager } from 'typeorm';
import { type KeysetOrder, keyset } from '../keyset';
import { returnedRows } from '../query-result';
import {
  MONITOR_LIMITS,
  type MonitorComparison,
  type MonitorMetric,
  type MonitorSettings,
  type MonitorState,
  type StatsFilter,
} from '@app/domain';

/** A monitor as the RPC answers it. */
export interface Monitor extends MonitorSettings {
  id: string;
  projectId: string;
  /** Null until the processor has evaluated it once. */
  state: MonitorState | null;
  value: number | null;
  evaluatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One change of a monitor's state. */
export interface MonitorHistoryEntry {
  at: string;
  state: MonitorState;
  previousState: MonitorState | null;
  value: number | null;
  threshold: number;
  comparison: MonitorComparison;
  windowStart: string;
  windowEnd: string;
}

interface MonitorRow {
  id: string;
  project_id: string;
  name: string;
  metric: MonitorMetric;
  score_name: string | null;
  filter_model: string | null;
  filter_span_type: string | null;
  filter_trace_name: string | null;
  filter_operation: string | null;
  window_seconds: number;
  comparison: MonitorComparison;
  threshold: number;
  enabled: boolean;
  state: MonitorState | null;
  value: number | null;
  evaluated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, project_id, name, metric, score_name, filter_model, filter_span_type, filter_trace_name, filter_operation, window_seconds, comparison, threshold,
  enabled, state, value, evaluated_at, created_at, updated_at`;

function toMonitor(r: MonitorRow): Monitor {
  const filter: StatsFilter = {};
  if (r.filter_model !== null) filter.model = r.filter_model;
  if (r.filter_span_type !== null) filter.spanType = r.filter_span_type;
  if (r.filter_trace_name !== null) filter.traceName = r.filter_trace_name;
  if (r.filter_operation !== null) filter.operation = r.filter_operation;
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    metric: r.metric,
    scoreName: r.score_name,
    filter,
    windowSeconds: r.window_seconds,
    comparison: r.comparison,
    threshold: r.threshold,
    enabled: r.enabled,
    state: r.state,
    value: r.value,
    evaluatedAt: r.evaluated_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Whether an update leaves what a monitor measures as it was (`m` the stored row, `n` the new settings). */
const SAME_RULE = `(m.metric, m.score_name, m.filter_model, m.filter_span_type, m.filter_trace_name, m.filter_operation, m.window_seconds, m.comparison, m.threshold)
  IS NOT DISTINCT FROM (n.metric, n.score_name, n.filter_model, n.filter_span_type, n.filter_trace_name, n.filter_operation, n.window_seconds, n.comparison, n.threshold)`;

/** Times to the millisecond, so that `updatedAt` as answered compares equal to the stored one. */
const NOW_MS = `date_trunc('milliseconds', now())`;

const settingsParams = (s: MonitorSettings) => [
  s.name,
  s.metric,
  s.scoreName,
  s.filter.model ?? null,
  s.filter.spanType ?? null,
  s.filter.traceName ?? null,
  s.windowSeconds,
  s.comparison,
  s.threshold,
  s.enabled,
  s.filter.operation ?? null,
];

/** The project already has as many monitors as it may. */
export class MonitorLimitError extends Error {}

/** State changes newest first. */
const HISTORY_ORDER: KeysetOrder = { columns: [{ sql: 'id', type: 'bigint' }], descending: true };

/**
 * A state change whose audit event AUDIT does not hold yet (migration StateChangeAuditOutbox):
 * kept whole, so it is audited even when its monitor or project has been deleted since.
 */
export interface UnauditedStateChange {
  historyId: string;
  orgId: string;
  projectId: string;
  monitorId: string;
  name: string;
  from: MonitorState | null;
  to: MonitorState;
  value: number | null;
  threshold: number;
  comparison: string;
  windowStart: Date;
  windowEnd: Date;
  at: Date;
}

/**
 * Monitors, their history and the audit outbox of their state changes: plain queries, no access
 * rules (the API's service holds those). Over the pool, or over a transaction's manager where a
 * caller writes in its own transaction (an evaluation, the audit relay).
 */
export class MonitorStore {
  constructor(private readonly db: DataSource | EntityManager) {}

  /** Stores a new monitor, unless the project has MONITOR_LIMITS.perProject already (counted under a lock of the project's row). */
  async create(projectId: string, s: MonitorSettings): Promise<Monitor> {
    return this.db.transaction(async (m) => {
      await m.query('SELECT 1 FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
      const [{ n }] = await m.query('SELECT count(*)::int AS n FROM monitors WHERE project_id = $1', [projectId]);
      if (n >= MONITOR_LIMITS.perProject) throw new MonitorLimitError(`a project has at most ${MONITOR_LIMITS.perProject} monitors`);
      const [row] = await m.query(
        `INSERT INTO monitors (project_id, name, metric, score_name, filter_model, filter_span_type, filter_trace_name, window_seconds, comparison, threshold, enabled, filter_operation, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, ${NOW_MS}, ${NOW_MS}) RETURNING ${COLUMNS}`,
        [projectId, ...settingsParams(s)],
      );
      return toMonitor(row);
    });
  }

  async list(projectId: string): Promise<Monitor[]> {
    const rows: MonitorRow[] = await this.db.query(`SELECT ${COLUMNS} FROM monitors WHERE project_id = $1 ORDER BY created_at, id`, [
      projectId,
    ]);
    return rows.map(toMonitor);
  }

  async get(projectId: string, id: string): Promise<Monitor | null> {
    const [row] = await this.db.query(`SELECT ${COLUMNS} FROM monitors WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return row ? toMonitor(row) : null;
  }

  /**
   * Replaces a monitor's settings. A change to what it measures (metric, score, filter, window,
   * comparison, threshold) starts it afresh: its state is null until the next evaluation, whose
   * first state is history of the new rule.
   */
  async update(projectId: string, id: string, s: MonitorSettings): Promise<Monitor | null> {
    const result: unknown = await this.db.query(
      `WITH new AS (
         SELECT $3::text AS name, $4::text AS metric, $5::text AS score_name, $6::text AS filter_model, $7::text AS filter_span_type, $8::text AS filter_trace_name,
                $9::int AS window_seconds, $10::text AS comparison, $11::float8 AS threshold, $12::boolean AS enabled, $13::text AS filter_operation
       )
       UPDATE monitors m SET name = n.name, metric = n.metric, score_name = n.score_name, filter_model = n.filter_model, filter_span_type = n.filter_span_type,
              filter_trace_name = n.filter_trace_name, filter_operation = n.filter_operation, window_seconds = n.window_seconds, comparison = n.comparison, threshold = n.threshold, enabled = n.enabled,
              updated_at = ${NOW_MS},
              state = CASE WHEN n.enabled AND ${SAME_RULE} THEN m.state END,
              value = CASE WHEN n.enabled AND ${SAME_RULE} THEN m.value END
         FROM new n
        WHERE m.project_id = $1 AND m.id = $2 RETURNING ${COLUMNS.split(',')
          .map((c) => `m.${c.trim()}`)
          .join(', ')}`,
      [projectId, id, ...settingsParams(s)],
    );
    const [row] = returnedRows<MonitorRow>(result);
    return row ? toMonitor(row) : null;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return (
      returnedRows(await this.db.query('DELETE FROM monitors WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, id])).length > 0
    );
  }

  /** State changes newest first, a page at a time; the cursor is the last entry's id. */
  async history(monitorId: string, before: string | null, limit: number): Promise<{ entries: (MonitorHistoryEntry & { id: string })[] }> {
    const params: unknown[] = [monitorId];
    const page = keyset(HISTORY_ORDER, before === null ? null : [before], limit, params);
    const rows: {
      id: string;
      at: Date;
      state: MonitorState;
      previous_state: MonitorState | null;
      value: number | null;
      threshold: number;
      comparison: MonitorComparison;
      window_start: Date;
      window_end: Date;
    }[] = await this.db.query(
      `SELECT id::text AS id, at, state, previous_state, value, threshold, comparison, window_start, window_end FROM monitor_history
          WHERE monitor_id = $1 AND ${page.after} ORDER BY ${page.orderBy} ${page.limit}`,
      params,
    );
    return {
      entries: rows.map((r) => ({
        id: r.id,
        at: r.at.toISOString(),
        state: r.state,
        previousState: r.previous_state,
        value: r.value,
        threshold: r.threshold,
        comparison: r.comparison,
        windowStart: r.window_start.toISOString(),
        windowEnd: r.window_end.toISOString(),
      })),
    };
  }

  /** Every enabled monitor with its project's organization, for an evaluation round. */
  async enabled(): Promise<(Monitor & { orgId: string })[]> {
    const rows: (MonitorRow & { org_id: string })[] = await this.db.query(
      `SELECT ${COLUMNS.split(',')
        .map((c) => `m.${c.trim()}`)
        .join(', ')}, p.org_id FROM monitors m JOIN projects p ON p.id = m.project_id WHERE m.enabled ORDER BY m.project_id, m.id`,
    );
    return rows.map((r) => ({ ...toMonitor(r), orgId: r.org_id }));
  }

  /**
   * Records an evaluation: the current state, value and time always, and a history row with its
   * audit outbox row when the state changed (or is the first). Skipped when the monitor's settings
   * changed since it was read (`updatedAt`), so a round never writes a state of a rule that no
   * longer holds. Returns whether the state changed.
   */
  async recordEvaluation(
    monitor: Pick<Monitor, 'id' | 'state' | 'threshold' | 'comparison' | 'updatedAt'>,
    result: { state: MonitorState; value: number | null; windowStart: Date; windowEnd: Date },
  ): Promise<boolean> {
    const updated = returnedRows(
      await this.db.query(
        `UPDATE monitors SET state = $2, value = $3, evaluated_at = now(), window_end = $4 WHERE id = $1 AND updated_at = $5 RETURNING id`,
        [monitor.id, result.state, result.value, result.windowEnd, monitor.updatedAt],
      ),
    );
    if (!updated.length || monitor.state === result.state) return false;
    await this.db.query(
      `WITH h AS (
         INSERT INTO monitor_history (monitor_id, state, previous_state, value, threshold, comparison, window_start, window_end) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *
       )
       INSERT INTO monitor_audit_outbox (history_id, org_id, project_id, monitor_id, name, previous_state, state, value, threshold, comparison, window_start, window_end, at)
       SELECT h.id, p.org_id, m.project_id, m.id, m.name, h.previous_state, h.state, h.value, h.threshold, h.comparison, h.window_start, h.window_end, h.at
         FROM h JOIN monitors m ON m.id = h.monitor_id JOIN projects p ON p.id = m.project_id`,
      [monitor.id, result.state, monitor.state, result.value, monitor.threshold, monitor.comparison, result.windowStart, result.windowEnd],
    );
    return true;
  }

  /** Locks up to `limit` state changes not yet audited, oldest first (SKIP LOCKED). */
  async takeUnauditedStateChanges(limit: number): Promise<UnauditedStateChange[]> {
    const rows = await this.db.query(
      `SELECT history_id::text AS "historyId", org_id AS "orgId", project_id AS "projectId", monitor_id AS "monitorId", name, previous_state AS "from", state AS "to",
              value, threshold, comparison, window_start AS "windowStart", window_end AS "windowEnd", at
         FROM monitor_audit_outbox ORDER BY history_id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows as UnauditedStateChange[];
  }

  async markStateChangesAudited(historyIds: string[]): Promise<void> {
    await this.db.query('DELETE FROM monitor_audit_outbox WHERE history_id = ANY($1::bigint[])', [historyIds]);
  }

  /**
   * The most seconds any enabled monitor has gone unevaluated (since it was created, if never),
   * by Postgres' clock; null when none is enabled. No monitor named: metrics carry no tenant ids.
   */
  async oldestEvaluationAge(): Promise<number | null> {
    const [row]: { seconds: number | null }[] = await this.db.query(
      'SELECT max(extract(epoch FROM now() - coalesce(evaluated_at, created_at)))::float8 AS seconds FROM monitors WHERE enabled',
    );
    return row?.seconds ?? null;
  }

  /** Enabled monitors per state, `PENDING` for those not evaluated yet; states no monitor is in are left out. */
  async stateCounts(): Promise<{ state: MonitorState | 'PENDING'; count: number }[]> {
    return this.db.query(`SELECT coalesce(state, 'PENDING') AS state, count(*)::int AS count FROM monitors WHERE enabled GROUP BY 1`);
  }
}
