/** A span's usage and cost by type, and where its cost came from, as the span page shows them. Pure. */

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

/** One row per usage type with tokens or a cost, in the order the span names its usage, then the costs' own types. */
export function usageCostRows(span: SpanCosts): UsageCostRow[] {
  const types = [...new Set([...Object.keys(span.usageDetails), ...Object.keys(span.costDetails)])];
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
