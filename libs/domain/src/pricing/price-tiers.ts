/**
 * Conditional prices of one definition (Langfuse's pricing tiers): a tier applies when every
 * one of its conditions holds on the span's usage, each condition comparing the sum of the
 * usage types whose names match its pattern with a threshold (`input` above 200,000 tokens for
 * a long-context price). Tiers are tried in priority order, lowest first; when none applies,
 * the definition's own prices do (the default tier).
 */
import type { UsageDetails } from '../telemetry/usage-details';
import type { PriceDefinition, Prices } from './price-definition';

export const TIER_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'] as const;
export type TierOperator = (typeof TIER_OPERATORS)[number];

export interface TierCondition {
  /** A regular expression on usage type names (bounded, as match patterns are). */
  usageDetailPattern: string;
  operator: TierOperator;
  value: number;
  caseSensitive: boolean;
}

export interface PriceTier {
  name: string;
  /** Lower is tried first; unique in its definition, above 0 (0 is the default tier). */
  priority: number;
  /** All must hold. */
  conditions: TierCondition[];
  prices: Prices;
}

const COMPARE: Record<TierOperator, (sum: number, value: number) => boolean> = {
  gt: (s, v) => s > v,
  gte: (s, v) => s >= v,
  lt: (s, v) => s < v,
  lte: (s, v) => s <= v,
  eq: (s, v) => s === v,
  neq: (s, v) => s !== v,
};

/** Compiled condition patterns; few per deployment, bounded all the same. */
const compiled = new Map<string, RegExp>();
function regexOf(condition: TierCondition): RegExp {
  const key = `${condition.caseSensitive ? '' : 'i'}/${condition.usageDetailPattern}`;
  let regex = compiled.get(key);
  if (!regex) {
    if (compiled.size >= 1_000) compiled.clear();
    regex = new RegExp(condition.usageDetailPattern, condition.caseSensitive ? '' : 'i');
    compiled.set(key, regex);
  }
  return regex;
}

export function conditionHolds(condition: TierCondition, usage: UsageDetails): boolean {
  const regex = regexOf(condition);
  let sum = 0;
  for (const [type, tokens] of Object.entries(usage)) if (regex.test(type)) sum += tokens;
  return COMPARE[condition.operator](sum, condition.value);
}

/** The prices that apply to `usage` under `definition`: its first tier (by priority) whose conditions all hold, else its own. */
export function pricesFor(definition: Pick<PriceDefinition, 'prices' | 'tiers'>, usage: UsageDetails): Prices {
  const tier = definition.tiers?.find((t) => t.conditions.every((c) => conditionHolds(c, usage)));
  return tier?.prices ?? definition.prices;
}
