import type { DataSource } from 'typeorm';
import type { NatsResources } from '@app/eventlog';
import { modelStatsProjection } from './model-stats/model-stats.projection';
import { rebuildModelStats } from './model-stats/rebuild-model-stats';
import { telemetryProjection } from './telemetry/telemetry.projection';
import { rebuildTelemetry } from './telemetry/rebuild-telemetry';

/** How far a rebuild has got: `done` of `total` units (stream sequences, or buckets). */
export interface RebuildTick {
  projection: string;
  phase: string;
  done: number;
  total: number;
}

export interface RebuildableProjection {
  name: string;
  /** The version this code builds; newer than the serving one means rebuild. */
  version: number;
  rebuild(ds: DataSource, nats: NatsResources, onTick: (tick: RebuildTick) => void): Promise<{ projection: string; version: number }>;
}

/**
 * Every projection a rebuild can make again, in the order to rebuild them: model stats are
 * counted from the telemetry rows, so they come after (a telemetry rebuild marks them all).
 */
export const REBUILDABLE_PROJECTIONS: readonly RebuildableProjection[] = [
  {
    name: telemetryProjection.name,
    version: telemetryProjection.version,
    rebuild: (ds, nats, onTick) =>
      rebuildTelemetry(ds, nats, { onProgress: (p) => onTick({ projection: telemetryProjection.name, phase: p.phase, done: p.seq, total: p.targetSeq }) }),
  },
  {
    name: modelStatsProjection.name,
    version: modelStatsProjection.version,
    rebuild: (ds, _nats, onTick) => rebuildModelStats(ds, (done, total) => onTick({ projection: modelStatsProjection.name, phase: 'recount', done, total })),
  },
];

export const projectionNamed = (name: string): RebuildableProjection | undefined => REBUILDABLE_PROJECTIONS.find((p) => p.name === name);
