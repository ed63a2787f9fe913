import type { DataSource } from 'typeorm';
import type { NatsResources } from '@app/eventlog';
import { auditProjection } from './audit/audit.projection';
import { modelStatsProjection } from './model-stats/model-stats.projection';
import { rebuildModelStats } from './model-stats/rebuild-model-stats';
import type { StreamProjection } from './projection';
import type { RebuildProgress } from './rebuild/rebuild-in-shadow';
import { rebuildPlainProjection } from './rebuild/rebuild-plain-projection';
import { telemetryProjection } from './telemetry/telemetry.projection';
import { rebuildTelemetry } from './telemetry/rebuild-telemetry';
import type { RebuildWorkers } from './telemetry/rebuild-workers/rebuild-preparer';
import { usageProjection } from './usage/usage.projection';

/** How far a rebuild has got: `done` of `total` units (stream sequences, or buckets). */
export interface RebuildTick {
  projection: string;
  phase: string;
  done: number;
  total: number;
  /**
   * Units this rebuild has processed: messages read, or buckets counted. The rate is counted
   * from these, not from `done`: a stream whose first messages are gone starts far above 0.
   */
  processed: number;
}

export interface RebuildableProjection {
  name: string;
  /** The version this code builds; newer than the serving one means rebuild. */
  version: number;
  /** `workers`: the threads a stream projection's rebuild may decode in (telemetry's does; the others' decode is light). */
  rebuild(
    ds: DataSource,
    nats: NatsResources,
    onTick: (tick: RebuildTick) => void,
    workers: RebuildWorkers,
  ): Promise<{ projection: string; version: number }>;
}

const streamTick =
  (projection: string, onTick: (tick: RebuildTick) => void) =>
  (p: RebuildProgress): void =>
    onTick({ projection, phase: p.phase, done: p.seq, total: p.targetSeq, processed: p.messages });

/** A projection whose live mode is its definition alone, rebuilt from its stream by the definition. */
const plain = <Event, Batch>(projection: StreamProjection<Event, Batch, unknown>): RebuildableProjection => ({
  name: projection.name,
  version: projection.version,
  rebuild: (ds, nats, onTick) => rebuildPlainProjection(ds, nats, projection, { onProgress: streamTick(projection.name, onTick) }),
});

/**
 * Every projection a rebuild can make again, in the order to rebuild them. Model stats are
 * counted from the telemetry rows, so they come after telemetry (whose rebuild marks them all).
 *
 * Usage comes after telemetry, though either order counts every unit once: each trace or
 * span is counted by one USAGE event, queued either by the live apply that created its row or
 * by a telemetry rebuild's swap for a row it created first (the live apply then finds the row
 * and counts nothing), and a relay publishing an outbox row again uses the same id. A usage
 * rebuild sums the stream's distinct ids, so it finds what the live projection counted,
 * including what a telemetry rebuild queued (or, if that is not relayed yet, the live
 * projection adds it to the new tables later, once).
 */
export const REBUILDABLE_PROJECTIONS: readonly RebuildableProjection[] = [
  {
    name: telemetryProjection.name,
    version: telemetryProjection.version,
    rebuild: (ds, nats, onTick, workers) =>
      rebuildTelemetry(ds, nats, workers, { onProgress: streamTick(telemetryProjection.name, onTick) }),
  },
  plain(usageProjection),
  plain(auditProjection),
  {
    name: modelStatsProjection.name,
    version: modelStatsProjection.version,
    rebuild: (ds, _nats, onTick) =>
      rebuildModelStats(ds, (done, total) =>
        onTick({ projection: modelStatsProjection.name, phase: 'recount', done, total, processed: done }),
      ),
  },
];

export const projectionNamed = (name: string): RebuildableProjection | undefined => REBUILDABLE_PROJECTIONS.find((p) => p.name === name);
