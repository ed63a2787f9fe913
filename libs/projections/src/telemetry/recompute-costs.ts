import type { DataSource, EntityManager } from 'typeorm';
import { type PriceLookup, modelsMatching } from '@app/domain';
import { ModelDefinitionStore, type RecomputationCursor } from '@app/persistence';
import { markModelStatsDirty } from '../model-stats/stats-marks';
import { projectPriceTable } from './project-prices';
import { PRICED_ROW_COLUMNS, type PricedRow, repriced, writeCosts } from './span-costs';
import { lockTelemetryTables } from './tables/telemetry-writer';

/** Spans looked at per step: one short transaction, so live batches wait little for its row locks. */
export const RECOMPUTE_BATCH_SPANS = 500;

export interface RecomputeStep {
  projectId: string;
  looked: number;
  recosted: number;
  done: boolean;
}

/**
 * The spans a recomputation looks at: those with a model, a start and usage (no other can have a
 * computed cost), of the models a change may price otherwise (`modelsMatching`), model after
 * model in the order of their index (`spans_project_model_start_id_idx`: model, start, id), so
 * each step reads its next rows from where the last stopped.
 */
const PRICEABLE = 'project_id = $1 AND start_time IS NOT NULL AND usage_details IS NOT NULL';

/**
 * One step of a project's cost recomputation (issue 28), in one transaction: the next spans of
 * the models the changes may price otherwise, in index order after the last step's, each priced
 * again from its row (model, start, usage and the usage's version) with the project's
 * definitions as they are now, the way the projection prices a message (`computedCost`); the
 * rows whose cost changed are written with their new cost, source, details and versions, their
 * stats buckets marked for recount, and the progress recorded with them. A client cost is left
 * as it is. A process killed mid-step leaves nothing of the step; the next one takes it again.
 * The first step finds the models (the project's distinct models, one index probe each) and
 * counts their spans.
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
    const first = job.models === null;
    const models = job.models ?? modelsMatching(await modelsOf(m, job.projectId), job.matchPatterns);
    const total = first ? await spansOf(m, job.projectId, models) : (job.spansTotal ?? 0);
    const page = await nextSpans(m, job.projectId, models, first ? null : job.after, limit);
    const recosted = await reprice(m, job.projectId, page.rows, table);
    await store.advanceRecomputation(job.projectId, {
      models,
      after: page.after,
      total,
      looked: page.rows.length,
      recosted,
      done: page.done,
    });
    return { projectId: job.projectId, looked: page.rows.length, recosted, done: page.done };
  });
}

/** The project's distinct models: a walk of the index, one probe per model, rather than a read of every span. */
async function modelsOf(m: EntityManager, projectId: string): Promise<string[]> {
  const rows: { model: string }[] = await m.query(
    `WITH RECURSIVE walk AS (
       (SELECT model FROM spans WHERE project_id = $1 AND model IS NOT NULL ORDER BY model LIMIT 1)
       UNION ALL
       SELECT (SELECT s.model FROM spans s WHERE s.project_id = $1 AND s.model IS NOT NULL AND s.model > walk.model ORDER BY s.model LIMIT 1)
         FROM walk WHERE walk.model IS NOT NULL
     )
     SELECT model FROM walk WHERE model IS NOT NULL`,
    [projectId],
  );
  // In the order of the walk (the column's collation), which every step then follows.
  return rows.map((r) => r.model);
}

async function spansOf(m: EntityManager, projectId: string, models: string[]): Promise<number> {
  if (!models.length) return 0;
  const [{ n }] = await m.query(`SELECT count(*)::bigint AS n FROM spans WHERE ${PRICEABLE} AND model = ANY($2::text[])`, [
    projectId,
    models,
  ]);
  return Number(n);
}

interface SpanPage {
  rows: (PricedRow & { start_key: string })[];
  /** The last span read, where the next step goes on from. */
  after: RecomputationCursor | null;
  /** No span is left after it. */
  done: boolean;
}

/** Up to `limit` spans after `after`, the rest of its model first, then the next models', locked for the step. */
async function nextSpans(
  m: EntityManager,
  projectId: string,
  models: string[],
  after: RecomputationCursor | null,
  limit: number,
): Promise<SpanPage> {
  const rows: SpanPage['rows'] = [];
  let cursor = after;
  for (let i = cursor ? models.indexOf(cursor.model) : 0; i >= 0 && i < models.length; i++) {
    const from = cursor?.model === models[i] ? cursor : null;
    const want = limit - rows.length;
    const page: SpanPage['rows'] = await m.query(
      `SELECT ${PRICED_ROW_COLUMNS}, start_time::text AS start_key FROM spans
        WHERE ${PRICEABLE} AND model = $2 ${from ? 'AND (start_time, id) > ($4::timestamptz, $5::uuid)' : ''}
        ORDER BY start_time, id LIMIT $3 FOR UPDATE`,
      from ? [projectId, models[i], want, from.startTime, from.spanId] : [projectId, models[i], want],
    );
    rows.push(...page);
    const last = page.at(-1);
    if (last) cursor = { model: models[i], startTime: last.start_key, spanId: last.id };
    if (rows.length === limit) return { rows, after: cursor, done: false };
  }
  return { rows, after: cursor, done: true };
}

/** Writes the rows whose price changed, marks their stats buckets; resolves with how many. */
async function reprice(m: EntityManager, projectId: string, rows: PricedRow[], table: PriceLookup): Promise<number> {
  const changed = rows.map((row) => repriced(row, table)).filter((r) => r !== null);
  if (!changed.length) return 0;
  await writeCosts(m, changed);
  // Model and start are unchanged: the rows stay in their buckets, whose cost is recounted.
  await markModelStatsDirty(m, { spans: changed.map((r) => ({ projectId, id: r.id as string })), traces: [], scores: [] });
  return changed.length;
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
