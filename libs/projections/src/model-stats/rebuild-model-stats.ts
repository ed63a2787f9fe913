import type { DataSource } from 'typeorm';
import { markAllModelStatsDirty, refreshDirtyModelStats } from '@app/persistence';

const BUCKETS_PER_TRANSACTION = 200;

export interface ModelStatsRebuild {
  projection: 'model-stats';
  /** Buckets this process recounted (running processors may recount some of them meanwhile). */
  buckets: number;
  durationMs: number;
}

/**
 * Recounts every model-stats bucket from the span and score rows, where any exists; the stats
 * stay readable meanwhile, each bucket replaced in one transaction.
 */
export async function rebuildModelStats(ds: DataSource, onProgress?: (buckets: number) => void): Promise<ModelStatsRebuild> {
  const started = Date.now();
  await markAllModelStatsDirty(ds);
  let buckets = 0;
  for (let n; (n = await refreshDirtyModelStats(ds, BUCKETS_PER_TRANSACTION)) > 0; ) {
    buckets += n;
    onProgress?.(buckets);
  }
  return { projection: 'model-stats', buckets, durationMs: Date.now() - started };
}
