import type { DataSource, EntityManager } from 'typeorm';
import { BUILT_IN_PRICES, LayeredPrices, type ModelDefinition, type PriceLookup, PriceTable } from '@app/domain';
import { ModelDefinitionStore } from '@app/persistence';

/** Compiled once per process: pricing a span is then a remembered match and a short scan of dates. */
export const BUILT_IN_TABLE = new PriceTable(BUILT_IN_PRICES);

/** A project's prices: its own definitions over the built-ins, and the version they are of (0: the built-ins alone). */
export interface ProjectPrices {
  version: number;
  table: PriceLookup;
  /** What `table` is compiled from (`projectPriceTable`): plain data, which a rebuild's worker threads compile themselves. */
  definitions: readonly ModelDefinition[];
}

/** Where a batch's prices come from: each project's, as they are now. */
export interface PriceTables {
  pricesOf(projectIds: readonly string[]): Promise<Map<string, ProjectPrices>>;
}

/** The table of a project with `definitions`: they first, then the built-ins. */
export const projectPriceTable = (definitions: readonly ModelDefinition[]): PriceLookup =>
  definitions.length ? new LayeredPrices([new PriceTable(definitions), BUILT_IN_TABLE]) : BUILT_IN_TABLE;

/** Projects whose table is kept; past it the cache starts again. */
const MAX_CACHED_PROJECTS = 10_000;

/**
 * Each project's price table, kept compiled while its version stays: one query of the batch's
 * projects' versions per batch, and the definitions read again only for a project whose version
 * changed. A table read just after a change may be newer than the version it is kept under; the
 * batch's transaction then finds the version changed and the batch is priced again.
 */
export class ProjectPriceTables implements PriceTables {
  private readonly cache = new Map<string, ProjectPrices>();

  constructor(private readonly db: DataSource | EntityManager) {}

  async pricesOf(projectIds: readonly string[]): Promise<Map<string, ProjectPrices>> {
    const store = new ModelDefinitionStore(this.db);
    const versions = await store.priceVersions(projectIds);
    const prices = new Map<string, ProjectPrices>();
    for (const [projectId, version] of versions) {
      let kept = this.cache.get(projectId);
      if (kept?.version !== version) {
        const definitions = version === 0 ? [] : await store.list(projectId);
        kept = { version, table: projectPriceTable(definitions), definitions };
        if (this.cache.size >= MAX_CACHED_PROJECTS) this.cache.clear();
        this.cache.set(projectId, kept);
      }
      prices.set(projectId, kept);
    }
    return prices;
  }
}
