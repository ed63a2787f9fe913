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
import { type SpanDelta, type SpanFields, type Version, type Versioned, versionOf } from '../telemetry/records';
import { costOf } from './cost';
import { pricesFor } from './price-tiers';
import type { PriceLookup } from './price-table';

export const PRICE_VERSION_TIME = '0000-01-01T00:00:00.000Z';
export const CLIENT_COST_SOURCE = 'client';
export const priceCostSource = (definitionId: string): string => `price:${definitionId}`;
/** Whether a cost's version is a computed one (below every client version). */
export const isPriceVersion = (version: Version): boolean => version.startsWith(`${PRICE_VERSION_TIME}|price:`);

/**
 * The span fields pricing sets, all at one version. The projection sets them per message
 * (`priceSpan`) and a recomputation per row (`recomputeCost`, libs/projections), both through
 * `computedCost`, so a field added here reaches both.
 */
export const PRICED_FIELDS = ['cost', 'costSource', 'costDetails'] as const satisfies readonly (keyof SpanFields)[];
export type PricedFields = Pick<SpanFields, (typeof PRICED_FIELDS)[number]>;

/** What a span reads as when priced: its model, start and usage, with the usage's version. */
export type PricingInput = Pick<Versioned<SpanFields>, 'values' | 'versions'>;

/**
 * The cost the table gives a span, with the version it is stamped with (`price:` then the
 * usage's version); null when the span has no model, start or usage, when no definition prices
 * its model at its start, or when none of its usage types has a price.
 */
export function computedCost({ values, versions }: PricingInput, table: PriceLookup): { values: PricedFields; version: Version } | null {
  const { model, usageDetails, startTime } = values;
  if (model === undefined || usageDetails === undefined || startTime === undefined || versions.usageDetails === undefined) return null;
  const definition = table.definitionAt(model, Date.parse(startTime));
  if (!definition) return null;
  const cost = costOf(usageDetails, pricesFor(definition, usageDetails));
  if (Object.keys(cost.details).length === 0 || cost.total > TELEMETRY_RANGES.spanCost.max) return null;
  return {
    values: { cost: cost.total, costSource: priceCostSource(definition.id), costDetails: cost.details },
    version: versionOf(PRICE_VERSION_TIME, `price:${versions.usageDetails}`),
  };
}

/**
 * Sets where the span's cost comes from, and a computed cost when it has none and the table
 * prices it. In place: the facts are the decoder's own, freshly made from one message, and
 * copying every span cost more than pricing it. Pricing a span again (with a newer table, when
 * a batch is prepared again) replaces the computed cost it had.
 */
export function priceSpan(span: SpanDelta, table: PriceLookup): void {
  const { values, versions } = span;
  if (values.cost !== undefined && versions.cost !== undefined && !isPriceVersion(versions.cost)) {
    values.costSource = CLIENT_COST_SOURCE;
    values.costDetails = {};
    versions.costSource = versions.cost;
    versions.costDetails = versions.cost;
    return;
  }
  for (const field of PRICED_FIELDS) {
    delete values[field];
    delete versions[field];
  }
  const computed = computedCost(span, table);
  if (!computed) return;
  Object.assign(values, computed.values);
  for (const field of PRICED_FIELDS) versions[field] = computed.version;
}
