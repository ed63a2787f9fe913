import { foldFacts } from '@app/domain';
import { otlpToFacts } from '@app/otlp';
import { ModelDefinitionStore, ProjectionCheckpoints, createDataSource } from '@app/persistence';
import {
  BUILT_IN_TABLE,
  lockTelemetryTables,
  markModelStatsDirty,
  modelStatsKeysOf,
  prepareTelemetry,
  priceMergedSpans,
  spansToPrice,
  pricedWith,
  refreshDirtyModelStats,
  refreshDirtyOverviewStats,
  telemetryLiveHooks,
  writePreparedTelemetry,
} from '@app/projections';
import { type Payload, takeRequestNumber } from '../payloads';

/** Messages per batch, as the live projection fetches them (DEFAULT_BATCH_SIZE). */
const MESSAGES_PER_BATCH = 64;

/** Milliseconds per batch for each step of the live apply, and for one model-stats recount after it. */
export type StatementFigures = Record<string, number> & { batches: number; spansPerBatch: number };

/**
 * Where a batch's time goes: the live apply's steps (applyTelemetryBatch, its live hooks
 * included) one at a time, each timed on its own, `batches` batches of 64 exports into the
 * stage's database (no processor running); begin and commit are the transaction's time less
 * its steps'. After each batch, one recount of the model-stats buckets it marked, as the
 * processor's refresher does during a drain.
 */
export async function measureStatements(
  databaseUrl: string,
  payload: Payload,
  tenant: { orgId: string; projectId: string },
  batches: number,
): Promise<StatementFigures> {
  const { projectId } = tenant;
  const ds = createDataSource({ url: databaseUrl, poolSize: 2, applicationName: 'spanlog-bench' });
  await ds.initialize();
  try {
    const position = { projection: 'bench-statements', version: 1, stream: 'BENCH' };
    await new ProjectionCheckpoints(ds).init(position, 0);
    const ms: Record<string, number> = {};
    const timed = async <T>(step: string, run: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      const result = await run();
      ms[step] = (ms[step] ?? 0) + performance.now() - started;
      return result;
    };
    let seq = 0;
    let spans = 0;
    for (let b = 0; b < batches; b++) {
      const messages = Array.from({ length: MESSAGES_PER_BATCH }, () =>
        otlpToFacts(JSON.parse(payload.render(takeRequestNumber())), { projectId, receivedAt: new Date().toISOString() }),
      );
      const facts = await timed('fold (processor)', () => Promise.resolve(foldFacts(messages)));
      const prepared = await timed('serialize rows (processor)', () => prepareTelemetry(facts));
      // As the live apply marks: the spans' buckets in the span upsert.
      const keys = { ...modelStatsKeysOf(facts), spans: [] };
      const seqs = messages.map(() => ++seq);
      spans += facts.spans.length;
      const batch = {
        telemetry: prepared,
        orgOf: new Map([[projectId, tenant.orgId]]),
        seqs,
        prices: new Map([[projectId, { version: 0, table: BUILT_IN_TABLE, definitions: [] }]]),
      };
      let steps = 0;
      const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
        const started = performance.now();
        const result = await timed(name, run);
        steps += performance.now() - started;
        return result;
      };
      const started = performance.now();
      await ds.transaction(async (m) => {
        await step('lock tables', () => lockTelemetryTables(m));
        await step('price versions (shared lock)', () => new ModelDefinitionStore(m).holdPriceVersions(pricedWith(batch)));
        await step('model-stats mark before', () => markModelStatsDirty(m, keys));
        const written = await step('upserts (tombstones, traces, spans marking their buckets, scores)', () =>
          writePreparedTelemetry(m, prepared, { markSpanStats: true }),
        );
        await step('rows merged into priced again', () => priceMergedSpans(m, spansToPrice(prepared.facts.spans), written, batch.prices));
        await step('model-stats mark after', () => markModelStatsDirty(m, keys));
        await step('usage outbox (live hook)', () => telemetryLiveHooks.countUsage(m, batch, written));
        await step('evaluation scheduling (live hook)', () => telemetryLiveHooks.scheduleEvaluations(m, batch));
        await step('record applied', () => new ProjectionCheckpoints(m).recordApplied(position, seqs));
      });
      ms['begin and commit'] = (ms['begin and commit'] ?? 0) + performance.now() - started - steps;
      await timed('model-stats recount of the marked buckets (refresher)', () => refreshDirtyModelStats(ds, 100));
      await timed('overview-stats recount of the marked buckets (refresher)', () => refreshDirtyOverviewStats(ds, 100));
    }
    const perBatch = Object.fromEntries(Object.entries(ms).map(([step, total]) => [step, total / batches]));
    return { ...perBatch, batches, spansPerBatch: spans / batches };
  } finally {
    await ds.destroy();
  }
}
