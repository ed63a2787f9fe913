import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import {
  type ChunkReader,
  type NatsResources,
  type ProjectionRunnerOptions,
  type PullConsumerRunner,
  projectionRunner,
} from '@app/eventlog';
import { projectionAppliedEvents } from '@app/metrics';
import { isReachable, isTransactionConflict } from '@app/persistence';
import type { StreamProjection } from '@app/projections';
import { ProjectPriceTables } from '@app/projections';

export interface LiveRunnerDeps {
  ds: DataSource;
  nats: NatsResources;
  chunks: ChunkReader;
  logger: Logger;
}

/**
 * What live mode adds to a definition: the transaction it applies in (with its live-only hooks),
 * what a dead letter records, and how many batches it applies at once (`lanes`, with the ones
 * that must go alone).
 */
export type LiveMode<Batch> = Partial<Pick<ProjectionRunnerOptions<unknown, Batch>, 'apply' | 'onDeadLetter' | 'lanes'>> & {
  applyAlone?(batch: Batch): boolean;
};

/** A prepared batch with how many events it holds, for the applied-events counter. */
export interface CountedBatch<Batch> {
  batch: Batch;
  events: number;
}

/**
 * A projection's live runner: its durable consumer, decoding and preparing with the definition's
 * own functions. Applies each batch with `live.apply`, or by default in a transaction of its own
 * with the definition's `apply` and nothing else, and counts its events once applied
 * (`spanlog_projection_applied_events_total`).
 */
export function liveRunner<Event, Batch, Applied>(
  projection: StreamProjection<Event, Batch, Applied>,
  deps: LiveRunnerDeps,
  live: LiveMode<Batch> = {},
): PullConsumerRunner<Event, CountedBatch<Batch>> {
  const apply = live.apply ?? (async (batch: Batch) => void (await deps.ds.transaction((tx) => projection.apply(tx, batch))));
  const applied = projectionAppliedEvents.labels({ projection: projection.name });
  applied.inc(0);
  const prices = new ProjectPriceTables(deps.ds);
  return projectionRunner<Event, CountedBatch<Batch>>(deps.nats, {
    stream: projection.source.stream,
    consumer: projection.source.consumer,
    logger: deps.logger,
    decode: (msg) => projection.decode(msg, { chunks: deps.chunks }),
    prepare: async (events) => ({ batch: await projection.prepare(events, { prices }), events: events.length }),
    apply: async ({ batch, events }) => {
      await apply(batch);
      applied.inc(events);
    },
    onDeadLetter: live.onDeadLetter,
    isHealthy: () => isReachable(deps.ds),
    lanes: live.lanes,
    applyAlone: live.applyAlone && (({ batch }) => live.applyAlone?.(batch) ?? false),
    // Batches applied side by side can deadlock on rows they share; Postgres fails one, which is run again.
    retryBatchOn: isTransactionConflict,
  });
}
