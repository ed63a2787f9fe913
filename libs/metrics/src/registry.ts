import { type Metric, Registry, collectDefaultMetrics } from 'prom-client';

/** Prefix of every metric name, the Node.js process's own included. */
export const METRIC_PREFIX = 'spanlog_';

/**
 * One app's registry: the Node.js process metrics (CPU, memory, event-loop lag, GC, handles)
 * under `spanlog_`, and the given metrics. Adding a metric to an app is one more entry here.
 */
export function metricsRegistry(metrics: readonly Metric[]): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  for (const metric of metrics) registry.registerMetric(metric);
  return registry;
}

/** The scrape's answer in the Prometheus text format. */
export async function scrape(registry: Registry): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
