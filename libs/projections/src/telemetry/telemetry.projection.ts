import type { DataSource, EntityManager } from 'typeorm';
import { INGEST_SCHEMAS, type SpanDelta, type TelemetryFacts, foldFacts, priceSpan } from '@app/domain';
import { CONSUMERS, type NatsResources } from '@app/eventlog';
import {
  EvalJobs,
  ModelDefinitionStore,
  ProjectionCheckpoints,
  type ProjectionPosition,
  TraceEvaluations,
  type UsageCount,
  UsageOutbox,
} from '@app/persistence';
import { type ModelStatsKeys, markModelStatsDirty } from '../model-stats/stats-marks';
import type { StreamProjection } from '../projection';
import { type DecodedIngestMessage, decodeIngestMessage } from './decode-ingest-message';
import { type SpansToPrice, priceMergedSpans, spansToPrice } from './merged-costs';
import type { PriceTables, ProjectPrices } from './project-prices';
import {
  type NewRows,
  type PreparedTelemetry,
  TELEMETRY_TABLES,
  type WrittenTelemetry,
  lockTelemetryTables,
  prepareTelemetry,
  writePreparedTelemetry,
} from './tables/telemetry-writer';

/** Decoded messages ready to write: folded and serialized, off the store's critical path. */
export interface TelemetryBatch {
  telemetry: PreparedTelemetry;
  orgOf: Map<string, string>;
  seqs: number[];
  /**
   * The prices each project's spans were priced with, and their version: the live transaction
   * refuses the batch if one changed since, and rows the batch merges into are priced with them.
   */
  prices: Map<string, ProjectPrices>;
  /** The spans `priceMergedSpans` looks at, where `telemetry.facts` does not hold them (a batch a rebuild's worker thread prepared). */
  spansToPrice?: SpansToPrice;
}

/**
 * Prices each span of the folded batch (`priceSpan`) with its project's prices as they are now:
 * a row the batch creates holds the cost of all the batch says of it; a row it merges into is
 * priced again after the upsert (`priceMergedSpans`), so the cost never depends on how messages
 * were batched.
 */
async function priceSpans(spans: SpanDelta[], prices: PriceTables): Promise<Map<string, ProjectPrices>> {
  const projects = [...new Set(spans.map((s) => s.projectId))];
  if (!projects.length) return new Map();
  const tables = await prices.pricesOf(projects);
  for (const span of spans) {
    const project = tables.get(span.projectId);
    if (project) priceSpan(span, project.table);
  }
  return tables;
}

/** The price version each project's spans were priced with. */
export const pricedWith = (batch: TelemetryBatch): Map<string, number> =>
  new Map([...batch.prices].map(([projectId, { version }]) => [projectId, version]));

/** The batch's rows in a transaction that locked the tables: the upserts, then the rows they merged into priced again. */
async function writeBatch(tx: EntityManager, batch: TelemetryBatch, options?: { markSpanStats: boolean }): Promise<WrittenTelemetry> {
  const written = await writePreparedTelemetry(tx, batch.telemetry, options);
  await priceMergedSpans(tx, batch.spansToPrice ?? spansToPrice(batch.telemetry.facts.spans), written, batch.prices);
  return written;
}

/**
 * INGEST into traces, spans, scores and dataset run items: how a span becomes a row. Decode
 * converts what the client sent (native, OTLP traces and logs, scores, run items, retention
 * deletions) into facts; prepare
 * folds them per row with the merge rule (`foldFacts`) and serializes the rows; apply upserts
 * each table in one statement. A new version marks a conversion that produces other rows from
 * the same messages (2: the instrumentation conventions and OTLP log records; 3: a 32-hex
 * trace id in a native event or score names the OTel trace, no longer a trace of its own,
 * span attributes are stored without the input/output copies, `leanAttributes`, and content
 * from log records only fills what a span leaves empty, whatever their time; 4: usage by type,
 * `usageDetails`, from every convention's token keys and native `usage`/`usageDetails`, and a
 * cost from the built-in price table where the client sent none, with `costSource` and
 * `costDetails`; 5: the usage types no price covered, `unpricedUsage`, and costs from the
 * project's own definitions over the built-ins, as they are when the batch is prepared (rows
 * written by 4 hold no `unpricedUsage`); 6: prompt and completion counts from usage sent by
 * type alone, a native `usageDetails` or Langfuse's `usage_details`, cache types on the prompt
 * side and reasoning on the completion side (`tokenTotalsOf`); 7: a span's computed cost from its
 * merged row, where 6 priced each message alone and left a span whose model and usage came in
 * different messages without one); the processor rebuilds the
 * tables when the serving version is older. Run items
 * (issue 31) came with a schema and a table of their own and change no row an older message
 * makes, so they needed no new version: their table starts empty and fills from the messages
 * that carry them.
 */
export const telemetryProjection: StreamProjection<DecodedIngestMessage, TelemetryBatch, WrittenTelemetry> = {
  name: 'telemetry',
  version: 7,
  tables: TELEMETRY_TABLES,
  source: { stream: 'ingest', consumer: CONSUMERS.ingestProjector },
  schemas: Object.values(INGEST_SCHEMAS),
  decode: (msg, { chunks }) => decodeIngestMessage(msg, chunks),
  prepare: async (items, context) => {
    const facts = foldFacts(items.map((i) => i.facts));
    const prices = await priceSpans(facts.spans, context.prices);
    return {
      telemetry: await prepareTelemetry(facts),
      orgOf: new Map(items.map((i) => [i.envelope.projectId, i.envelope.orgId])),
      seqs: items.map((i) => i.seq),
      prices,
    };
  },
  apply: async (tx, batch) => {
    // The tables' locks (and the write's settings) before any read of them, in the order a rebuild's swap takes them.
    await lockTelemetryTables(tx);
    return writeBatch(tx, batch);
  },
};

/**
 * The telemetry projection's live-only hooks, called in the batch's transaction after its rows:
 * side effects a rebuild never has. Each is once-only by construction (usage counts only rows
 * the transaction created; a job is unique per evaluator and span), so whichever path applies a
 * message first (live, `dlq retry`, a repair or replay of a message never applied) triggers them.
 */
export const telemetryLiveHooks = {
  /** Queues the usage of the rows the batch created in the usage outbox (`UsageRelay` publishes it). */
  countUsage(tx: EntityManager, batch: TelemetryBatch, written: WrittenTelemetry): Promise<void> {
    const usage = (metric: UsageCount['metric'], rows: NewRows[]): UsageCount[] =>
      rows.map((r) => ({ orgId: batch.orgOf.get(r.projectId) as string, month: r.month, metric, n: r.n }));
    return new UsageOutbox(tx).queue([...usage('traces', written.newTraces), ...usage('spans', written.newSpans)]);
  },
  /**
   * Queues the evaluation jobs the batch's spans call for (`EvalJobRelay` publishes them), and
   * arms the trace-level evaluations of the traces it wrote to: due once their root span has
   * ended and no data of theirs arrived for the quiet window (`TraceEvaluationPoller` makes the
   * jobs). Scores are no data of a trace here: an evaluation's own score must not arm it again.
   */
  async scheduleEvaluations(tx: EntityManager, batch: TelemetryBatch): Promise<void> {
    await new EvalJobs(tx).schedule(batch.telemetry.facts.spans);
    await new TraceEvaluations(tx).arm(writtenTraces(batch.telemetry.facts));
  },
};

/** The traces whose own fields or spans a batch wrote. */
function writtenTraces({ traces, spans }: TelemetryFacts): { projectId: string; id: string }[] {
  const written = new Map(traces.map((t) => [`${t.projectId}/${t.id}`, { projectId: t.projectId, id: t.id }]));
  for (const s of spans) {
    const id = s.values.traceId;
    if (id !== undefined) written.set(`${s.projectId}/${id}`, { projectId: s.projectId, id });
  }
  return [...written.values()];
}

/** Where the telemetry projection records what it applied of this deployment's INGEST. */
export const telemetryPosition = (nats: Pick<NatsResources, 'layout'>): ProjectionPosition => ({
  projection: telemetryProjection.name,
  version: telemetryProjection.version,
  stream: nats.layout.streamName(telemetryProjection.source.stream),
});

/** Which live-only hooks an apply calls. */
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
 * Applies a batch to the live tables, the one way the live runner, the replay, a repair and a
 * dead-letter retry do: the rows, the hooks asked for, and the sequences applied, in one
 * transaction. Returns the watermark after it.
 */
export async function applyTelemetryBatch(
  ds: DataSource,
  position: ProjectionPosition,
  batch: TelemetryBatch,
  options: ApplyOptions,
): Promise<number> {
  // The spans are left out: the span upsert marks the buckets its rows leave and join itself.
  const statsKeys = { ...modelStatsKeysOf(batch.telemetry.facts), spans: [] };
  return ds.transaction(async (m) => {
    // The tables' locks before any read of them, in the order a rebuild's swap takes them.
    await lockTelemetryTables(m);
    // No price change commits until this batch has; one committed since it was priced refuses it (StalePricesError).
    await new ModelDefinitionStore(m).holdPriceVersions(pricedWith(batch));
    // The stats buckets the batch's rows are in before and after it: a span whose model or start changes leaves one.
    await markModelStatsDirty(m, statsKeys);
    const written = await writeBatch(m, batch, { markSpanStats: true });
    await markModelStatsDirty(m, statsKeys);
    if (options.countUsage) await telemetryLiveHooks.countUsage(m, batch, written);
    if (options.scheduleEvaluations) await telemetryLiveHooks.scheduleEvaluations(m, batch);
    return new ProjectionCheckpoints(m).recordApplied(position, batch.seqs);
  });
}

/** What a batch's facts touch in the stats read model; exported for the bench's statements stage. */
export const modelStatsKeysOf = (facts: TelemetryFacts): ModelStatsKeys => ({
  spans: facts.spans.map((s) => ({ projectId: s.projectId, id: s.id })),
  traces: facts.traces.map((t) => ({ projectId: t.projectId, id: t.id, named: t.values.name !== undefined })),
  scores: [
    ...facts.scores.map((c) => ({ projectId: c.projectId, id: c.id, traceId: c.values.traceId, spanId: c.values.spanId })),
    // A removed score leaves its buckets: marked before the write, while its row still says which.
    ...facts.scoreDeletions.map((d) => ({ projectId: d.projectId, id: d.id, traceId: d.traceId, spanId: d.spanId })),
  ],
});
