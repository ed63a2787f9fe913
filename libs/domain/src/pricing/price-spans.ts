/**
 * The cost of a span whose client sent none, from the price table: its usage by type priced by
 * the definition valid at its start for its model. Done per message, when its facts are made,
 * so the rows never depend on how messages were batched (a rebuild batches them otherwise).
 *
 * A computed cost is versioned below every version a client can send (`PRICE_VERSION_TIME`,
 * then the version of the usage it prices): by the merge rule it only fills a cost the client
 * leaves empty, a client cost in any later or earlier event wins, and of two computed costs the
 * one from the newer usage wins. `costSource` and `costDetails` carry the cost's version, so they
 * always describe the cost the row holds: `client` (with no details) or `price:<definition id>`
 * with the cost per usage type.
 */
import { TELEMETRY_RANGES } from '../limits';
import { type SpanDelta, versionOf } from '../telemetry/records';
import { costOf } from './cost';
import type { PriceTable } from './price-table';

export const PRICE_VERSION_TIME = '0000-01-01T00:00:00.000Z';
export const CLIENT_COST_SOURCE = 'client';
export const priceCostSource = (definitionId: string): string => `price:${definitionId}`;

/** The span with where its cost comes from, and a computed cost when it has none and the table prices it. */
export function pricedSpan(span: SpanDelta, table: PriceTable): SpanDelta {
  const { values, versions } = span;
  if (values.cost !== undefined && versions.cost !== undefined) {
    return { ...span, values: { ...values, costSource: CLIENT_COST_SOURCE, costDetails: {} }, versions: { ...versions, costSource: versions.cost, costDetails: versions.cost } };
  }
  const { model, usageDetails, startTime } = values;
  if (model === undefined || usageDetails === undefined || startTime === undefined || versions.usageDetails === undefined) return span;
  const definition = table.definitionAt(model, Date.parse(startTime));
  if (!definition) return span;
  const cost = costOf(usageDetails, definition.prices);
  if (Object.keys(cost.details).length === 0 || cost.total > TELEMETRY_RANGES.spanCost.max) return span;
  const version = versionOf(PRICE_VERSION_TIME, `price:${versions.usageDetails}`);
  return {
    ...span,
    values: { ...values, cost: cost.total, costSource: priceCostSource(definition.id), costDetails: cost.details },
    versions: { ...versions, cost: version, costSource: version, costDetails: version },
  };
}
