import type { DataSource } from 'typeorm';
import { markAllModelStatsDirty, recordServingVersion, refreshDirtyModelStats } from '@app/persistence';

/** The model-stats projection's name and version, as recorded in `projection_versions`. */
export const MODEL_STATS_PROJECTION = { name: 'model-stats', version: 1 } as const;

const BUCKETS_PER_TRANSACTION = 200;

export interface ModelStatsRebuild {
  projection: 'model-stats';
  version: number;
  /** Buckets this process recounted (running processors may recount some of them meanwhile). */
  buckets: number;
  durationMs: number;
}

/**
 * Recounts every model-stats bucket from the span and score rows, where any exists; the stats
 * stay readable meanwhile, each bucket replaced in one transaction.
 */
export async function rebuildModelStats(ds: DataSource, onProgress?: (done: number, total: number) => void): Promise<ModelStatsRebuild> {
  const started = Date.now();
  const total = await markAllModelStatsDirty(ds);
  let buckets = 0;
  for (let n; (n = await refreshDirtyModelStats(ds, BUCKETS_PER_TRANSACTION)) > 0; ) {
    buckets += n;
    onProgress?.(Math.min(buckets, total), total);
  }
  await recordServingVersion(ds, MODEL_STATS_PROJECTION.name, MODEL_STATS_PROJECTION.version);
  return { projection: MODEL_STATS_PROJECTION.name, version: MODEL_STATS_PROJECTION.version, buckets, durationMs: Date.now() - started };
}
