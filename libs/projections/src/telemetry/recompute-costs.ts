import type { DataSource, EntityManager } from 'typeorm';
import { PRICED_FIELDS, type PriceLookup, type SpanFields, type Version, computedCost } from '@app/domain';
import { type KeysetOrder, ModelDefinitionStore, keyset } from '@app/persistence';
import { markModelStatsDirty } from '../model-stats/stats-marks';
import { projectPriceTable } from './project-prices';
import { SPAN_FIELD_COLUMNS } from './tables/columns';
import { type StoredVersions, storedVersionOf } from './tables/stored-versions';
import { lockTelemetryTables } from './tables/telemetry-writer';

/** Spans looked at per step: one short transaction, so live batches wait little for its row locks. */
export const RECOMPUTE_BATCH_SPANS = 500;

/** The columns pricing sets, from the one list of priced fields: a field added there is recomputed too. */
const PRICED_COLUMNS = SPAN_FIELD_COLUMNS.filter((c) => (PRICED_FIELDS as readonly string[]).includes(c.field));
const SPAN_ORDER: KeysetOrder = { columns: [{ sql: 'id', type: 'uuid' }] };

interface PricedRow {
  id: string;
  model: string | null;
  start_time: Date | null;
  usage_details: Record<string, number>;
  versions: StoredVersions;
  [column: string]: unknown;
}

export interface RecomputeStep {
  projectId: string;
  looked: number;
  recosted: number;
  done: boolean;
}

/**
 * One step of a project's cost recomputation (issue 28), in one transaction: the next spans with
 * usage, in key order after the last step's, each priced again from its row (model, start,
 * usage and the usage's version) with the project's definitions as they are now, the way the
 * projection prices a message (`computedCost`); the rows whose cost changed are written with
 * their new cost, source, details and versions, their stats buckets marked for recount, and the
 * progress recorded with them. A client cost is left as it is. A process killed mid-step leaves
 * nothing of the step; the next one takes it again.
 *
 * The definitions can only change between steps: a change takes the recomputation's row first,
 * which the step holds, and starts it again from the first span.
 */
export function recomputeCostStep(ds: DataSource, limit = RECOMPUTE_BATCH_SPANS): Promise<RecomputeStep | null> {
  return ds.transaction(async (m) => {
    const store = new ModelDefinitionStore(m);
    const job = await store.claimRecomputation();
    if (!job) return null;
    await lockTelemetryTables(m);
    const table = projectPriceTable(await store.list(job.projectId));
    const total = job.spansTotal ?? (await spansWithUsage(m, job.projectId));
    const params: unknown[] = [job.projectId];
    const page = keyset(SPAN_ORDER, job.afterSpanId ? [job.afterSpanId] : null, limit, params);
    const rows: PricedRow[] = await m.query(
      `SELECT id, model, start_time, usage_details, versions, ${PRICED_COLUMNS.map((c) => c.column).join(', ')} FROM spans
        WHERE project_id = $1 AND usage_details IS NOT NULL AND ${page.after} ORDER BY ${page.orderBy} ${page.limit} FOR UPDATE`,
      params,
    );
    const changed = rows.map((row) => repriced(row, table)).filter((r) => r !== null);
    if (changed.length) await writeCosts(m, job.projectId, changed);
    const done = rows.length < limit;
    await store.advanceRecomputation(job.projectId, {
      afterSpanId: rows.at(-1)?.id ?? job.afterSpanId,
      total,
      looked: rows.length,
      recosted: changed.length,
      done,
    });
    return { projectId: job.projectId, looked: rows.length, recosted: changed.length, done };
  });
}

async function spansWithUsage(m: EntityManager, projectId: string): Promise<number> {
  const [{ n }] = await m.query('SELECT count(*)::bigint AS n FROM spans WHERE project_id = $1 AND usage_details IS NOT NULL', [projectId]);
  return Number(n);
}

/** A row's priced columns and their versions as the table prices it now; null when they are what the row holds. */
function repriced(row: PricedRow, table: PriceLookup): Record<string, unknown> | null {
  // A client's cost (or one stored before costs had a source) always wins.
  if (row.cost !== null && (row.cost_source === null || row.cost_source === 'client')) return null;
  const usageVersion = storedVersionOf(row.versions, 'usageDetails');
  const computed = computedCost(
    {
      values: { model: row.model ?? undefined, startTime: row.start_time?.toISOString(), usageDetails: row.usage_details },
      versions: usageVersion === undefined ? {} : { usageDetails: usageVersion },
    },
    table,
  );
  const values = computed?.values as Partial<SpanFields> | undefined;
  const next: Record<string, unknown> = { id: row.id, versions: {} };
  let same = true;
  for (const { field, column } of PRICED_COLUMNS) {
    const value = values?.[field] ?? null;
    // A field the table leaves empty has no version, as when a message is priced (`priceSpan`).
    const version: Version | null = value === null ? null : (computed?.version ?? null);
    next[column] = value;
    (next.versions as Record<string, Version | null>)[field] = version;
    same &&= sameJson(row[column], value) && (storedVersionOf(row.versions, field) ?? null) === version;
  }
  return same ? null : next;
}

/** Equal as stored: jsonb orders an object's keys its own way. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return (
    ka.length === kb.length &&
    ka.every((k, i) => k === kb[i] && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

async function writeCosts(m: EntityManager, projectId: string, rows: Record<string, unknown>[]): Promise<void> {
  await m.query(
    `UPDATE spans s SET ${PRICED_COLUMNS.map((c) => `${c.column} = r.${c.column}`).join(', ')}, versions = s.versions || r.versions
       FROM jsonb_to_recordset($2::jsonb) AS r (id uuid, ${PRICED_COLUMNS.map((c) => `${c.column} ${c.type}`).join(', ')}, versions jsonb)
      WHERE s.project_id = $1 AND s.id = r.id`,
    [projectId, JSON.stringify(rows)],
  );
  // Model and start are unchanged: the rows stay in their buckets, whose cost is recounted.
  await markModelStatsDirty(m, { spans: rows.map((r) => ({ projectId, id: r.id as string })), traces: [], scores: [] });
}

/** Runs steps until no recomputation is left running; resolves with the spans looked at. */
export async function recomputeCosts(
  ds: DataSource,
  limit = RECOMPUTE_BATCH_SPANS,
  onStep?: (step: RecomputeStep) => void,
): Promise<number> {
  let looked = 0;
  for (let step = await recomputeCostStep(ds, limit); step; step = await recomputeCostStep(ds, limit)) {
    looked += step.looked;
    onStep?.(step);
  }
  return looked;
}
