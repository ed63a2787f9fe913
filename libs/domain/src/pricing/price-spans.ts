/**
 * The cost of a span whose client sent none, from the price table: its usage by type priced by
 * the definition valid at its start for its model. Done per message, when its facts are made,
 * so the rows never depend on how messages were batched (a rebuild batches them otherwise).
 *
 * A computed cost is versioned below every version a client can send (`PRICE_VERSION_TIME`,
 * then the version of the usage it prices): by the merge rule it only fills a cost the client
 * leaves empty, a client cost in any later or earlier event wins, and of two computed costs the
 * one from the newer usage wins. `costSource`, `costDetails` and `unpricedUsage` carry the cost's
 * version, so they always describe the cost the row holds: `client` (with no details, nothing
 * unpriced) or `price:<definition id>` with the cost per usage type and the types it could not
 * price. A span with a model and usage that the table cannot price at all (no definition for the
 * model at its start, or none of its types priced) gets no cost and names its types in
 * `unpricedUsage`, at the version a computed cost would have had, so a client cost still wins.
 */
import { TELEMETRY_RANGES } from '../limits';
import { type SpanDelta, versionOf } from '../telemetry/records';
import { costOf } from './cost';
import type { PriceTable } from './price-table';

export const PRICE_VERSION_TIME = '0000-01-01T00:00:00.000Z';
export const CLIENT_COST_SOURCE = 'client';
const PRICE_SOURCE = 'price:';
export const priceCostSource = (definitionId: string): string => `${PRICE_SOURCE}${definitionId}`;
/** The definition id a `price:<id>` cost source names; null for a client's cost or none. */
export const definitionIdOfCostSource = (source: string | null): string | null =>
  source?.startsWith(PRICE_SOURCE) ? source.slice(PRICE_SOURCE.length) : null;

/**
 * Sets where the span's cost comes from, and a computed cost when it has none and the table
 * prices it. In place: the facts are the decoder's own, freshly made from one message, and
 * copying every span cost more than pricing it.
 */
export function priceSpan(span: SpanDelta, table: PriceTable): void {
  const { values, versions } = span;
  if (values.cost !== undefined && versions.cost !== undefined) {
    values.costSource = CLIENT_COST_SOURCE;
    values.costDetails = {};
    values.unpricedUsage = [];
    versions.costSource = versions.cost;
    versions.costDetails = versions.cost;
    versions.unpricedUsage = versions.cost;
    return;
  }
  const { model, usageDetails, startTime } = values;
  if (model === undefined || usageDetails === undefined || startTime === undefined || versions.usageDetails === undefined) return;
  const version = versionOf(PRICE_VERSION_TIME, `price:${versions.usageDetails}`);
  const definition = table.definitionAt(model, Date.parse(startTime));
  const cost = definition ? costOf(usageDetails, definition.prices) : undefined;
  if (!definition || !cost || Object.keys(cost.details).length === 0) {
    const unpriced = cost?.unpriced ?? Object.keys(usageDetails).filter((type) => usageDetails[type] > 0);
    if (unpriced.length === 0) return;
    values.unpricedUsage = unpriced.sort();
    versions.unpricedUsage = version;
    return;
  }
  if (cost.total > TELEMETRY_RANGES.spanCost.max) return;
  values.cost = cost.total;
  values.costSource = priceCostSource(definition.id);
  values.costDetails = cost.details;
  values.unpricedUsage = cost.unpriced.sort();
  versions.cost = version;
  versions.costSource = version;
  versions.costDetails = version;
  versions.unpricedUsage = version;
}
