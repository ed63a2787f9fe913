import type { DataSource, EntityManager } from 'typeorm';
import { type KeysetOrder, ModelDefinitionStore, keyset } from '@app/persistence';
import { markModelStatsDirty } from '../model-stats/stats-marks';
import { projectPriceTable } from './project-prices';
import { PRICED_ROW_COLUMNS, type PricedRow, repriced, writeCosts } from './span-costs';
import { lockTelemetryTables } from './tables/telemetry-writer';

/** Spans looked at per step: one short transaction, so live batches wait little for its row locks. */
export const RECOMPUTE_BATCH_SPANS = 500;

const SPAN_ORDER: KeysetOrder = { columns: [{ sql: 'id', type: 'uuid' }] };

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
    // The tables before the recomputation's row, in the order a rebuild's swap takes them (it restarts recomputations under its lock).
    await lockTelemetryTables(m);
    const store = new ModelDefinitionStore(m);
    const job = await store.claimRecomputation();
    if (!job) return null;
    const table = projectPriceTable(await store.list(job.projectId));
    const total = job.spansTotal ?? (await spansWithUsage(m, job.projectId));
    const params: unknown[] = [job.projectId];
    const page = keyset(SPAN_ORDER, job.afterSpanId ? [job.afterSpanId] : null, limit, params);
    const rows: PricedRow[] = await m.query(
      `SELECT ${PRICED_ROW_COLUMNS} FROM spans
        WHERE project_id = $1 AND usage_details IS NOT NULL AND ${page.after} ORDER BY ${page.orderBy} ${page.limit} FOR UPDATE`,
      params,
    );
    const changed = rows.map((row) => repriced(row, table)).filter((r) => r !== null);
    if (changed.length) {
      await writeCosts(m, changed);
      // Model and start are unchanged: the rows stay in their buckets, whose cost is recounted.
      await markModelStatsDirty(m, {
        spans: changed.map((r) => ({ projectId: job.projectId, id: r.id as string })),
        traces: [],
        scores: [],
      });
    }
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
