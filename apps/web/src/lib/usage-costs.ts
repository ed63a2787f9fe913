/** A span's usage and cost by type, and where its cost came from, as the span page shows them. Pure. */
import { USAGE_TYPES } from '@app/domain/telemetry/usage-details';

/** The known types in the order a bill reads (input and its cache parts, then output and reasoning), then the others by name. */
const KNOWN_ORDER: string[] = [
  USAGE_TYPES.input,
  USAGE_TYPES.cachedInput,
  USAGE_TYPES.cacheWrite,
  USAGE_TYPES.output,
  USAGE_TYPES.reasoning,
];
const rank = (type: string) => {
  const i = KNOWN_ORDER.indexOf(type);
  return i === -1 ? KNOWN_ORDER.length : i;
};

export interface UsageCostRow {
  type: string;
  tokens: number | null;
  /** USD; null when the type has no cost of its own (a client's cost, or usage the table left out). */
  cost: number | null;
  /** The price table had no price for the type: its tokens are not in the cost. */
  unpriced: boolean;
}

interface SpanCosts {
  usageDetails: Record<string, number>;
  costDetails: Record<string, number>;
  unpricedUsage: string[];
  costSource: string | null;
  costDefinition: { id: string; modelName: string } | null;
}

/** One row per usage type with tokens or a cost, known types first (stored JSON keeps no order of its own). */
export function usageCostRows(span: SpanCosts): UsageCostRow[] {
  const types = [...new Set([...Object.keys(span.usageDetails), ...Object.keys(span.costDetails)])].sort(
    (a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0),
  );
  return types.map((type) => ({
    type,
    tokens: span.usageDetails[type] ?? null,
    cost: span.costDetails[type] ?? null,
    unpriced: span.unpricedUsage.includes(type),
  }));
}

/** Where the cost came from, in words: the client, or the price definition and the model it prices. */
export function costSourceText(span: SpanCosts): string | null {
  if (span.costSource === null) return null;
  if (span.costSource === 'client') return 'sent by the client';
  if (span.costDefinition) return `price table: ${span.costDefinition.modelName} (${span.costSource})`;
  return `price table (${span.costSource})`;
}
