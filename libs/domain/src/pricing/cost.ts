/**
 * A span's cost from its usage by type and a definition's prices: each type's count times its
 * price, summed. A type the definition does not price falls back to the price of the type it is
 * billed like (`PRICE_FALLBACKS`: reasoning as output, cached input and cache writes as input,
 * which never prices below what the vendor charges); a type with neither is left out of the cost
 * and named in `unpriced`, never counted as free.
 */
import { USAGE_TYPES, type UsageDetails } from '../telemetry/usage-details';
import type { Prices } from './price-definition';

export const PRICE_FALLBACKS: Readonly<Record<string, string>> = {
  [USAGE_TYPES.reasoning]: USAGE_TYPES.output,
  [USAGE_TYPES.cachedInput]: USAGE_TYPES.input,
  [USAGE_TYPES.cacheWrite]: USAGE_TYPES.input,
};

export interface UsageCost {
  /** USD, the sum of `details`. */
  total: number;
  /** USD per usage type priced. */
  details: Record<string, number>;
  /** Usage types with tokens and no price, not in the total. */
  unpriced: string[];
}

/** The price per token of one usage type, its own or its fallback's; undefined when neither is priced. */
export function priceOf(type: string, prices: Prices): number | undefined {
  if (Object.hasOwn(prices, type)) return prices[type];
  const fallback = Object.hasOwn(PRICE_FALLBACKS, type) ? PRICE_FALLBACKS[type] : undefined;
  return fallback !== undefined && Object.hasOwn(prices, fallback) ? prices[fallback] : undefined;
}

export function costOf(usage: UsageDetails, prices: Prices): UsageCost {
  const cost: UsageCost = { total: 0, details: {}, unpriced: [] };
  for (const [type, tokens] of Object.entries(usage)) {
    const price = priceOf(type, prices);
    if (price === undefined) {
      if (tokens > 0) cost.unpriced.push(type);
      continue;
    }
    const amount = tokens * price;
    cost.details[type] = amount;
    cost.total += amount;
  }
  return cost;
}
