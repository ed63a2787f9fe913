/**
 * The definition that prices a model at a time: the first model (in table order) whose pattern
 * matches the name, then of that model's definitions the one with the latest `startDate` at or
 * before the time. Patterns are compiled once, when the table is made, and a model name's
 * match is remembered, so pricing a span on ingest is a map lookup and a short scan of dates.
 */
import type { PriceDefinition } from './price-definition';

interface ModelPrices {
  pattern: RegExp;
  /** Latest start first. */
  definitions: { startMs: number; definition: PriceDefinition }[];
}

/** How a definition's `matchPattern` is matched against a model name: the one rule for pricing and for what a change affects. */
export const compilePattern = (matchPattern: string): RegExp => new RegExp(matchPattern, 'i');

/** Distinct model names remembered; past it the memory starts again, so a flood of names cannot grow it. */
const MAX_REMEMBERED_NAMES = 10_000;

export class PriceTable {
  private readonly models: ModelPrices[] = [];
  private readonly matched = new Map<string, ModelPrices | null>();

  /** `definitions` as validated (`validatePriceDefinition`): anchored, bounded patterns and ISO dates. */
  constructor(definitions: readonly PriceDefinition[]) {
    const byModel = new Map<string, ModelPrices>();
    for (const definition of definitions) {
      // A model's definitions share its pattern; a project may give one name two patterns.
      const key = `${definition.modelName}\n${definition.matchPattern}`;
      let model = byModel.get(key);
      if (!model) {
        model = { pattern: compilePattern(definition.matchPattern), definitions: [] };
        byModel.set(key, model);
        this.models.push(model);
      }
      model.definitions.push({ startMs: Date.parse(definition.startDate), definition });
    }
    for (const model of this.models) model.definitions.sort((a, b) => b.startMs - a.startMs);
  }

  /** The definition pricing `model` at `atMs`, or undefined when none does. */
  definitionAt(model: string, atMs: number): PriceDefinition | undefined {
    return this.modelOf(model)?.definitions.find((d) => d.startMs <= atMs)?.definition;
  }

  private modelOf(name: string): ModelPrices | null {
    const known = this.matched.get(name);
    if (known !== undefined) return known;
    const found = this.models.find((m) => m.pattern.test(name)) ?? null;
    if (this.matched.size >= MAX_REMEMBERED_NAMES) this.matched.clear();
    this.matched.set(name, found);
    return found;
  }
}

/** What pricing needs of a table: the definition pricing a model at a time. */
export type PriceLookup = Pick<PriceTable, 'definitionAt'>;

/**
 * Tables tried in order, the first that prices a model at a time winning: a project's own
 * definitions, then the built-ins. A project definition that starts after a span leaves the
 * span to the built-ins, as Langfuse does (custom over built-in, each by its start date).
 */
export class LayeredPrices implements PriceLookup {
  constructor(private readonly layers: readonly PriceLookup[]) {}

  definitionAt(model: string, atMs: number): PriceDefinition | undefined {
    for (const layer of this.layers) {
      const found = layer.definitionAt(model, atMs);
      if (found) return found;
    }
    return undefined;
  }
}
