import type { DataSource } from 'typeorm';
import type { NatsResources } from '@app/eventlog';
import type { StreamProjection } from '../projection';
import { type RebuildOptions, type StreamRebuildResult, rebuildInShadow, withRebuildLock } from './rebuild-in-shadow';
import { countShadowRows } from './shadow-tables';

export interface PlainRebuildResult extends StreamRebuildResult {
  /** Rows in each of the new tables when they were swapped in. */
  rows: Record<string, number>;
}

/**
 * Rebuilds a projection whose live mode is its definition alone (usage, audit): nothing but
 * the replay and the swap, since its apply has no side effect and it keeps no checkpoint.
 */
export async function rebuildPlainProjection<Event, Batch>(
  ds: DataSource,
  nats: NatsResources,
  projection: StreamProjection<Event, Batch, unknown>,
  options: RebuildOptions = {},
): Promise<PlainRebuildResult> {
  const started = Date.now();
  const run = await withRebuildLock(ds, projection.name, (runner) =>
    rebuildInShadow(runner, nats, projection, { beforeSwap: countShadowRows }, options),
  );
  return {
    projection: projection.name,
    version: projection.version,
    workers: run.workers,
    stream: run.stream,
    lastSeq: run.lastSeq,
    messages: run.messages,
    skipped: run.skipped,
    rows: run.swapped,
    durationMs: Date.now() - started,
  };
}
