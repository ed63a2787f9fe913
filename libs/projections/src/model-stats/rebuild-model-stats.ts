import type { DataSource } from 'typeorm';
import { ProjectionCheckpoints } from '@app/persistence';
import { withRebuildLock } from '../rebuild/rebuild-in-shadow';
import { markAllModelStatsDirty } from './model-stats-tables';
import { modelStatsProjection } from './model-stats.projection';

const BUCKETS_PER_TRANSACTION = 200;

export interface ModelStatsRebuild {
  projection: string;
  version: number;
  /** Buckets this process recounted (running processors may recount some of them meanwhile). */
  buckets: number;
  durationMs: number;
}

/**
 * Recounts every model-stats bucket from the span and score rows, where any exists; the stats
 * stay readable meanwhile, each bucket replaced in one transaction. `RebuildBusyError` when
 * another session is rebuilding them.
 */
export async function rebuildModelStats(ds: DataSource, onProgress?: (done: number, total: number) => void): Promise<ModelStatsRebuild> {
  const started = Date.now();
  // Every processor's upgrader sees a version bump at once: one recounts, the others are told
  // so (and look again later) instead of marking every bucket again and sharing the recount.
  const buckets = await withRebuildLock(ds, modelStatsProjection.name, async () => {
    const total = await markAllModelStatsDirty(ds);
    let buckets = 0;
    for (let n; (n = await modelStatsProjection.refresh(ds, BUCKETS_PER_TRANSACTION)) > 0;) {
      buckets += n;
      onProgress?.(Math.min(buckets, total), total);
    }
    await new ProjectionCheckpoints(ds).recordServingVersion(modelStatsProjection.name, modelStatsProjection.version);
    return buckets;
  });
  return { projection: modelStatsProjection.name, version: modelStatsProjection.version, buckets, durationMs: Date.now() - started };
}
