/**
 * Usage by type from a convention's token attributes: the totals and the counts they include
 * (cache reads, cache writes, reasoning…), each part taken out of its total by the domain's
 * `usageOfTotals`, so every convention's usage reads as the same disjoint types.
 */
import { type UsageDetails, type UsagePart, usageOfTotals } from '@app/domain';
import { type Rule, countOf, get, keyed } from './readers';

/** A convention's usage keys: its totals (the first key with a count wins) and the parts they include. */
export interface UsageTable {
  input: readonly string[];
  output: readonly string[];
  parts: readonly { key: string; type: string; of: 'input' | 'output' }[];
}

/** The span's usage by type under one table, read from every key of it that holds a count. */
export const usageOf = (table: UsageTable): Rule<UsageDetails> =>
  keyed([...table.input, ...table.output, ...table.parts.map((part) => part.key)], ({ attributes }) => {
    const from: string[] = [];
    const first = (keys: readonly string[]): number | undefined => {
      for (const key of keys) {
        const count = countOf(get(attributes, key));
        if (count !== undefined) {
          from.push(key);
          return count;
        }
      }
      return undefined;
    };
    const totals = { input: first(table.input), output: first(table.output) };
    const parts: UsagePart[] = [];
    const seen = new Set<string>();
    for (const { key, type, of } of table.parts) {
      const count = seen.has(type) ? undefined : countOf(get(attributes, key));
      if (count === undefined) continue;
      seen.add(type);
      parts.push({ type, of, count });
      from.push(key);
    }
    const value = usageOfTotals(totals, parts);
    return value === undefined ? undefined : { value, from };
  });
