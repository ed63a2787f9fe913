import { existsSync } from 'node:fs';
import { type BatchPreparer, inProcessPreparer } from '../../rebuild/batch-preparer';
import { liveMayLackRowsOf, rowsWrittenBy } from '../rows-live-may-lack';
import { type TelemetryBatch, telemetryProjection } from '../telemetry.projection';
import { REBUILD_WORKER_ENTRY, RebuildWorkerPool, type WorkerPoolContext } from './rebuild-worker-pool';

/** How a telemetry rebuild decodes and prepares its batches (`SPANLOG_REBUILD_WORKERS`). */
export interface RebuildWorkers {
  /** Worker threads; 0 decodes in the rebuild's own thread. */
  workers: number;
  /** Told when worker threads were asked for and cannot run, so that the rebuild decodes in its own thread. */
  warn(message: string): void;
}

/**
 * The telemetry rebuild's preparer: `workers` worker threads, or the rebuild's own thread when
 * asked (0) or when there is no compiled worker module (the code runs from TypeScript, as under
 * ts-jest), which is said through `warn`. Both write the same rows.
 */
export function telemetryRebuildPreparer(
  { workers, warn }: RebuildWorkers,
  context: WorkerPoolContext,
  entry = REBUILD_WORKER_ENTRY,
): BatchPreparer<TelemetryBatch> {
  if (workers > 0 && existsSync(entry)) return new RebuildWorkerPool(workers, context, entry);
  if (workers > 0) warn(`no compiled rebuild worker at ${entry} (running from TypeScript); decoding in this thread instead of ${workers}`);
  const liveMayLack = liveMayLackRowsOf(context.setup);
  return inProcessPreparer(telemetryProjection, context, (seq, event) => {
    if (liveMayLack(seq)) context.onLiveMayLack(rowsWrittenBy(event));
  });
}
