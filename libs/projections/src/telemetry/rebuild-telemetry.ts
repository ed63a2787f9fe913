import type { DataSource, EntityManager } from 'typeorm';
import { ChunkReader, type NatsResources, deadLetteredSeqs } from '@app/eventlog';
import { ModelDefinitionStore, ProjectionCheckpoints, type UsageCount, UsageOutbox } from '@app/persistence';
import { markAllModelStatsDirty } from '../model-stats/model-stats-tables';
import { type RebuildOptions, type StreamRebuildResult, rebuildInShadow, withRebuildLock } from '../rebuild/rebuild-in-shadow';
import { type ShadowTables, countShadowRows } from '../rebuild/shadow-tables';
import { countRowsOnlyInShadow } from './tables/shadow-rows';
import { ProjectPriceTables } from './project-prices';
import { RowsLiveMayLack } from './rows-live-may-lack';
import { type RebuildWorkers, telemetryRebuildPreparer } from './rebuild-workers/rebuild-preparer';
import { telemetryPosition, telemetryProjection } from './telemetry.projection';

export interface RebuildResult extends StreamRebuildResult {
  traces: number;
  spans: number;
  scores: number;
  /**
   * Traces and spans the rebuild created before the live projection did: the live
   * projection finds them existing after the swap, so the rebuild counts their usage.
   */
  usageCounted: { traces: number; spans: number };
  /** Projects whose prices changed while the rebuild replayed: the swap started their cost recomputation again. */
  recomputedProjects: number;
}

/**
 * Rebuilds traces, spans and scores from INGEST (`rebuildInShadow`, DESIGN "Projections").
 * Deletions are events in the stream and tombstones stay in place, so nothing deleted comes
 * back. Usage is counted once: the swap counts only the rows it created ahead of the live
 * projection, which will find them existing. The swap also moves the applied watermark, and
 * afterwards every model-stats bucket is marked for recount. The messages are decoded and
 * prepared in `workers` threads (`telemetryRebuildPreparer`), which are stopped at the end.
 *
 * The replay prices with each project's prices as they are when a batch is prepared, and a
 * change of a project's definitions recomputes the live tables only: so the swap starts the cost
 * recomputation again, on the new tables, of every project whose price version moved since the
 * rebuild began (read before its first batch was priced). A change that commits after the swap
 * read the versions starts its own, whose steps wait for the swap's locks (they take the tables
 * first) and so run on the new tables.
 */
export async function rebuildTelemetry(
  ds: DataSource,
  nats: NatsResources,
  workers: RebuildWorkers,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const started = Date.now();
  return withRebuildLock(ds, telemetryProjection.name, async (runner) => {
    // Every message at or below the live watermark is in the live tables and counted, but for the
    // dead-lettered ones: rows of those and of later ones may not be (a dead letter this rebuild
    // can apply would otherwise never be counted: `spanlog dlq retry` then finds its rows existing).
    const position = telemetryPosition(nats);
    const liveFloor = await new ProjectionCheckpoints(runner.manager).appliedThrough(position);
    const deadLettered = await deadLetteredSeqs(nats, {
      stream: position.stream,
      consumer: nats.layout.consumerName(telemetryProjection.source.consumer),
    });
    const rowsLiveMayLack = new RowsLiveMayLack();
    const pricesAtStart = await new ModelDefinitionStore(runner.manager).allPriceVersions();
    const preparer = telemetryRebuildPreparer(workers, {
      chunks: new ChunkReader(nats.js, nats.layout),
      // The projects' prices as they are now: a rebuild computes costs with the current definitions.
      prices: new ProjectPriceTables(runner.connection),
      setup: { liveFloor, deadLettered: [...deadLettered] },
      onLiveMayLack: (rows) => rowsLiveMayLack.add(rows),
    });
    const run = await rebuildInShadow(
      runner,
      nats,
      telemetryProjection,
      {
        beforeSwap: async (m, shadow) => {
          const { traces, spans, scores } = await countShadowRows(m, shadow);
          const usage = await usageOfRowsOnlyInShadow(m, shadow, rowsLiveMayLack);
          await new UsageOutbox(m).queue(usage);
          const total = (metric: UsageCount['metric']) => usage.filter((u) => u.metric === metric).reduce((n, u) => n + u.n, 0);
          const repriced = await restartRecomputationsOfChangedPrices(m, pricesAtStart);
          return { traces, spans, scores, usageCounted: { traces: total('traces'), spans: total('spans') }, recomputedProjects: repriced };
        },
        // Every message up to here is in the new tables: reads waiting for one need not wait for the live consumer.
        afterSwap: async (m, lastSeq) => void (await new ProjectionCheckpoints(m).markHandledThrough(position, lastSeq)),
      },
      options,
      preparer,
    )
      // Stopping the worker threads, whatever happened: the CLI's process exits with its last thread.
      .finally(() => preparer.close());
    // Model stats are counted from the rows, which are new tables now: every bucket is counted again (outside the swap's locks).
    await markAllModelStatsDirty(runner.manager);
    const { workers: threads, stream, lastSeq, messages, skipped, swapped } = run;
    return {
      workers: threads,
      projection: telemetryProjection.name,
      version: telemetryProjection.version,
      stream,
      lastSeq,
      messages,
      skipped,
      ...swapped,
      durationMs: Date.now() - started,
    };
  });
}

/** In the swap, the live tables locked: the projects whose price version is not what it was at `start`, recomputed again. */
async function restartRecomputationsOfChangedPrices(m: EntityManager, start: ReadonlyMap<string, number>): Promise<number> {
  const store = new ModelDefinitionStore(m);
  const moved = [...(await store.allPriceVersions())].filter(([projectId, version]) => start.get(projectId) !== version).map(([p]) => p);
  await store.restartRecomputations(moved);
  return moved.length;
}

async function usageOfRowsOnlyInShadow(m: EntityManager, shadow: ShadowTables, rows: RowsLiveMayLack): Promise<UsageCount[]> {
  const traces = await countRowsOnlyInShadow(m, shadow, 'traces', rows.traces);
  const spans = await countRowsOnlyInShadow(m, shadow, 'spans', rows.spans);
  return [...traces.map((c) => ({ ...c, metric: 'traces' as const })), ...spans.map((c) => ({ ...c, metric: 'spans' as const }))];
}
