/**
 * Which spans a change of a project's definitions can price otherwise: those whose model matches
 * the pattern of a definition it created, changed or deleted (its old pattern and its new one). A
 * model matching none of them is matched by the same definitions before and after, in the same
 * order, so the table prices it the same; the built-ins do not change. A recomputation looks at
 * the spans of these models only.
 */
import type { ModelDefinition } from './model-definition';
import { compilePattern } from './price-table';

/** What a definition prices by: two definitions equal in these price every span alike. */
const pricingOf = (d: ModelDefinition): string =>
  JSON.stringify([d.modelName, d.matchPattern, d.startDate, d.unit, d.prices, d.tiers ?? []]);

/** The patterns of the definitions a change from `before` to `after` created, changed or deleted, each once. */
export function changedPatterns(before: readonly ModelDefinition[], after: readonly ModelDefinition[]): string[] {
  const pricing = (list: readonly ModelDefinition[]) => new Map(list.map((d) => [d.id, pricingOf(d)]));
  const [was, is] = [pricing(before), pricing(after)];
  const changed = [...before.filter((d) => is.get(d.id) !== was.get(d.id)), ...after.filter((d) => was.get(d.id) !== is.get(d.id))];
  return [...new Set(changed.map((d) => d.matchPattern))].sort();
}

/** The `models` a change of `patterns` may price otherwise; every model when `patterns` is null (not known). */
export function modelsMatching(models: readonly string[], patterns: readonly string[] | null): string[] {
  if (patterns === null) return [...models];
  const compiled = patterns.map(compilePattern);
  return models.filter((model) => compiled.some((pattern) => pattern.test(model)));
}
