import { Gauge } from 'prom-client';
import type { ModelDefinitionStore } from '@app/persistence';

/**
 * `spanlog_cost_recompute_spans_remaining`: spans the running cost recomputations have still to
 * look at, read from Postgres when scraped (0 when none runs); with
 * `spanlog_cost_recompute_spans_total` it shows a recomputation's progress and rate. No label
 * names a project: `/metrics` is unauthenticated.
 */
export function costRecomputeRemainingGauge(store: ModelDefinitionStore): Gauge {
  return new Gauge({
    name: 'spanlog_cost_recompute_spans_remaining',
    help: 'Spans with usage the running cost recomputations have still to look at',
    registers: [],
    async collect() {
      this.reset();
      try {
        this.set(await store.spansRemaining());
      } catch {
        this.reset();
      }
    },
  });
}
