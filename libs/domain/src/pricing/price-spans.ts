/**
 * The cost of a span whose client sent none, from the price table: its usage by type priced by
 * the definition valid at its start for its model. The projection prices a batch's folded spans
 * and then, from the stored row, each row a batch merged into (libs/projections merged-costs), so
 * a row's cost is always what its merged fields price to, however messages were batched (a
 * rebuild batches them otherwise).
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
import { type SpanDelta, type SpanFields, type Version, type Versioned, versionOf } from '../telemetry/records';
import { costOf } from './cost';
import { pricesFor } from './price-tiers';
import type { PriceLookup } from './price-table';

export const PRICE_VERSION_TIME = '0000-01-01T00:00:00.000Z';
export const CLIENT_COST_SOURCE = 'client';
const PRICE_SOURCE = 'price:';
export const priceCostSource = (definitionId: string): string => `${PRICE_SOURCE}${definitionId}`;
/** The definition id a `price:<id>` cost source names; null for a client's cost or none. */
export const definitionIdOfCostSource = (source: string | null): string | null =>
  source?.startsWith(PRICE_SOURCE) ? source.slice(PRICE_SOURCE.length) : null;
/** Whether a cost's version is a computed one (below every client version). */
export const isPriceVersion = (version: Version): boolean => version.startsWith(`${PRICE_VERSION_TIME}|price:`);

/**
 * The span fields pricing sets, all at one version. The projection sets them per folded span
 * (`priceSpan`) and per merged row, a recomputation per row (`repriced`, libs/projections), all
 * through `computedCost`, so a field added here reaches each.
 */
export const PRICED_FIELDS = ['cost', 'costSource', 'costDetails', 'unpricedUsage'] as const satisfies readonly (keyof SpanFields)[];
export type PricedFields = Pick<SpanFields, (typeof PRICED_FIELDS)[number]>;

/** What a span reads as when priced: its model, start and usage, with the usage's version. */
export type PricingInput = Pick<Versioned<SpanFields>, 'values' | 'versions'>;

/**
 * The cost the table gives a span, with the version it is stamped with (`price:` then the
 * usage's version), and the usage types with tokens it could not price (`unpricedUsage`): all
 * of them when no definition prices the model at the span's start or none of its types has a
 * price (then no cost). Null when the span has no model, start or usage, or nothing to report.
 */
export function computedCost(
  { values, versions }: PricingInput,
  table: PriceLookup,
): { values: Partial<PricedFields>; version: Version } | null {
  const { model, usageDetails, startTime } = values;
  if (model === undefined || usageDetails === undefined || startTime === undefined || versions.usageDetails === undefined) return null;
  const version = versionOf(PRICE_VERSION_TIME, `price:${versions.usageDetails}`);
  const definition = table.definitionAt(model, Date.parse(startTime));
  const cost = definition ? costOf(usageDetails, pricesFor(definition, usageDetails)) : undefined;
  if (!definition || !cost || Object.keys(cost.details).length === 0) {
    const unpriced = cost?.unpriced ?? Object.keys(usageDetails).filter((type) => usageDetails[type] > 0);
    return unpriced.length ? { values: { unpricedUsage: [...unpriced].sort() }, version } : null;
  }
  if (cost.total > TELEMETRY_RANGES.spanCost.max) return null;
  return {
    values: {
      cost: cost.total,
      costSource: priceCostSource(definition.id),
      costDetails: cost.details,
      unpricedUsage: [...cost.unpriced].sort(),
    },
    version,
  };
}

/**
 * Sets where the span's cost comes from, and a computed cost when it has none and the table
 * prices it. In place: the facts are the batch's own fold (or the decoder's, for a span one
 * message tells), and copying every span cost more than pricing it. Pricing a span again (with a newer table, when
 * a batch is prepared again) replaces the computed cost it had.
 */
export function priceSpan(span: SpanDelta, table: PriceLookup): void {
  const { values, versions } = span;
  if (values.cost !== undefined && versions.cost !== undefined && !isPriceVersion(versions.cost)) {
    values.costSource = CLIENT_COST_SOURCE;
    values.costDetails = {};
    values.unpricedUsage = [];
    versions.costSource = versions.cost;
    versions.costDetails = versions.cost;
    versions.unpricedUsage = versions.cost;
    return;
  }
  // Only what a pricing before set: `delete` of a missing key still costs a runtime call, eight a span (issue 25).
  for (const field of PRICED_FIELDS) {
    if (values[field] !== undefined) delete values[field];
    if (versions[field] !== undefined) delete versions[field];
  }
  const computed = computedCost(span, table);
  if (!computed) return;
  Object.assign(values, computed.values);
  for (const field of Object.keys(computed.values) as (keyof PricedFields)[]) versions[field] = computed.version;
}
