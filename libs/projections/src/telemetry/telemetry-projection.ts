import type { DataSource } from 'typeorm';
import { type TelemetryFacts, foldFacts } from '@app/domain';
import type { NatsResources } from '@app/eventlog';
import {
  type NewRows,
  type PreparedTelemetry,
  type ModelStatsKeys,
  type ProjectionPosition,
  type UsageCount,
  lockTelemetryTables,
  markModelStatsDirty,
  prepareTelemetry,
  queueUsage,
  recordApplied,
  scheduleEvaluations,
  writePreparedTelemetry,
} from '@app/persistence';
import type { DecodedIngestMessage } from './decode-ingest-message';

/**
 * The telemetry projection's name and version, as recorded in `projection_checkpoints`. A new
 * version marks a conversion that produces other rows from the same messages (2: the
 * instrumentation conventions and OTLP log records); `spanlog rebuild` applies it to old data.
 */
export const TELEMETRY_PROJECTION = { name: 'telemetry', version: 2 } as const;

/** Where the telemetry projection records what it applied of this deployment's INGEST. */
export const telemetryPosition = (nats: Pick<NatsResources, 'layout'>): ProjectionPosition => ({
  projection: TELEMETRY_PROJECTION.name,
  version: TELEMETRY_PROJECTION.version,
  stream: nats.layout.streamName('ingest'),
});

/** Decoded messages ready to write: folded and serialized, off the store's critical path. */
export interface TelemetryBatch {
  telemetry: PreparedTelemetry;
  orgOf: Map<string, string>;
  seqs: number[];
}

export async function prepareTelemetryBatch(items: DecodedIngestMessage[]): Promise<TelemetryBatch> {
  return {
    telemetry: await prepareTelemetry(foldFacts(items.map((i) => i.facts))),
    orgOf: new Map(items.map((i) => [i.envelope.projectId, i.envelope.orgId])),
    seqs: items.map((i) => i.seq),
  };
}

export interface ApplyOptions {
  /** Live only: queue the evaluation jobs the batch's spans call for. A repair never calls a webhook. */
  scheduleEvaluations: boolean;
  /**
   * Count the usage of the rows the batch creates. Off only to re-create rows of messages
   * applied (and counted) before, which were removed behind the projection's back.
   */
  countUsage: boolean;
}

/**
 * Applies a batch the one way the live projection and a repair do: the rows, the usage of the
 * rows it creates (a message applied again creates none, so nothing is counted twice), and the
 * sequences it applied, in one transaction. Returns the watermark after it.
 */
export async function applyTelemetryBatch(ds: DataSource, position: ProjectionPosition, batch: TelemetryBatch, options: ApplyOptions): Promise<number> {
  const { telemetry, orgOf, seqs } = batch;
  const usage = (metric: UsageCount['metric'], rows: NewRows[]): UsageCount[] =>
    rows.map((r) => ({ orgId: orgOf.get(r.projectId) as string, month: r.month, metric, n: r.n }));
  const statsKeys = modelStatsKeysOf(telemetry.facts);
  return ds.transaction(async (m) => {
    // The tables' locks before any read of them, in the order a rebuild's swap takes them.
    await lockTelemetryTables(m);
    // The model-stats buckets the batch's spans are in before and after it: a span whose model or start changes leaves one.
    await markModelStatsDirty(m, statsKeys);
    const { newTraces, newSpans } = await writePreparedTelemetry(m, telemetry);
    await markModelStatsDirty(m, statsKeys);
    if (options.countUsage) await queueUsage(m, [...usage('traces', newTraces), ...usage('spans', newSpans)]);
    if (options.scheduleEvaluations) await scheduleEvaluations(m, telemetry.facts.spans);
    return recordApplied(m, position, seqs);
  });
}

const modelStatsKeysOf = (facts: TelemetryFacts): ModelStatsKeys => ({
  spans: facts.spans.map((s) => ({ projectId: s.projectId, id: s.id })),
  scores: facts.scores.map((c) => ({ projectId: c.projectId, traceId: c.values.traceId, spanId: c.values.spanId })),
});
