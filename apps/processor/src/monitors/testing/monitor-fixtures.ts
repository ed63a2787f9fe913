import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import type { MonitorSettings } from '@app/domain';
import type { NatsResources } from '@app/eventlog';
import { MonitorStore, ProjectionCheckpoints } from '@app/persistence';
import { modelStatsProjection, telemetryProjection } from '@app/projections';
import { MonitorEvaluator } from '../monitor.evaluator';

/** A monitor that any evaluation of an empty project moves to ALERT: fewer than one call in five minutes. */
export const noTrafficMonitor = (name: string, enabled = true): MonitorSettings => ({
  name,
  metric: 'calls',
  scoreName: null,
  filter: {},
  windowSeconds: 300,
  comparison: '<',
  threshold: 1,
  enabled,
});

/** A monitor that alerts when the five-minute p95 latency passes one second. */
export const slowMonitor: MonitorSettings = {
  name: 'slow',
  metric: 'latency_p95',
  scoreName: null,
  filter: {},
  windowSeconds: 300,
  comparison: '>',
  threshold: 1_000,
  enabled: true,
};

/** Marks the projections the evaluator reads as serving their current version, as a caught-up processor would. */
export async function serveCurrentProjections(ds: DataSource): Promise<void> {
  for (const projection of [telemetryProjection, modelStatsProjection])
    await new ProjectionCheckpoints(ds).recordServingVersion(projection.name, projection.version);
}

/** An evaluator over one pool and NATS connection, with its stores made over the same pool. */
export const monitorEvaluatorOn = (ds: DataSource, nats: NatsResources, config: AppConfig, logger: Logger) =>
  new MonitorEvaluator(ds, nats, new MonitorStore(ds), new ProjectionCheckpoints(ds), config, logger);
