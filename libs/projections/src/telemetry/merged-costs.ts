import type { EntityManager } from 'typeorm';
import { CLIENT_COST_SOURCE, type SpanDelta } from '@app/domain';
import type { ProjectPrices } from './project-prices';
import { PRICED_ROW_COLUMNS, type PricedRow, repriced, writeCosts } from './span-costs';
import type { WrittenTelemetry } from './tables/telemetry-writer';

/** What a computed cost depends on besides the table: a delta setting one may change the price of the row it merges into. */
const PRICING_INPUTS = ['model', 'startTime', 'usageDetails'] as const;

/** A span row, by key. */
export interface SpanKey {
  projectId: string;
  id: string;
}

/** A batch's spans as `priceMergedSpans` needs them: how many, and (only asked for when some merged) those whose row may price otherwise now. */
export interface SpansToPrice {
  count: number;
  candidates(): SpanKey[];
}

/** The spans whose delta sets what a price depends on, without a client cost. */
export const pricingCandidates = (spans: readonly SpanDelta[]): SpanKey[] =>
  spans
    .filter((s) => s.values.costSource !== CLIENT_COST_SOURCE && PRICING_INPUTS.some((field) => s.values[field] !== undefined))
    .map((s) => ({ projectId: s.projectId, id: s.id }));

/** A batch's spans at hand (live, and a rebuild decoding in its own thread). */
export const spansToPrice = (spans: readonly SpanDelta[]): SpansToPrice => ({
  count: spans.length,
  candidates: () => pricingCandidates(spans),
});

/**
 * After a batch's span upsert, in its transaction: prices the rows it merged into again from
 * what they hold now, the way a recomputation does (`repriced`), so a span whose model and
 * usage came in different messages (a native `generation-create`, then a `generation-update`
 * with the usage, in either order) holds the cost of its merged row, live and in a rebuild,
 * however the messages were batched. A row the batch created holds its delta, which `prepare`
 * priced whole (after the fold); a row the batch's deltas set no model, start or usage of keeps
 * its price; a client cost is never touched. So when every span of the batch is new (the OTLP
 * path: a span comes whole, once) nothing is read. The stats buckets of the rows were marked
 * by the upsert itself (model and start are unchanged here), and their recount reads the
 * committed rows.
 */
export async function priceMergedSpans(
  m: EntityManager,
  spans: SpansToPrice,
  written: WrittenTelemetry,
  prices: ReadonlyMap<string, ProjectPrices>,
): Promise<number> {
  const created = written.newSpans.reduce((n, r) => n + r.n, 0);
  if (created === spans.count) return 0;
  const merged = spans.candidates();
  if (!merged.length) return 0;
  // Locked already: the upsert wrote them in this transaction.
  const rows: PricedRow[] = await m.query(
    `SELECT ${PRICED_ROW_COLUMNS} FROM spans s JOIN unnest($1::uuid[], $2::uuid[]) AS k (project_id, id) USING (project_id, id)
      WHERE s.usage_details IS NOT NULL`,
    [merged.map((s) => s.projectId), merged.map((s) => s.id)],
  );
  const changed: Record<string, unknown>[] = [];
  for (const row of rows) {
    const table = prices.get(row.project_id)?.table;
    const next = table && repriced(row, table);
    if (next) changed.push(next);
  }
  if (changed.length) await writeCosts(m, changed);
  return changed.length;
}
