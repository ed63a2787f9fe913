import { foldFacts } from '@app/domain';
import { otlpToFacts } from '@app/otlp';
import { createDataSource, initCheckpoint, recordApplied } from '@app/persistence';
import { lockTelemetryTables, markModelStatsDirty, modelStatsKeysOf, prepareTelemetry, refreshDirtyModelStats, refreshDirtyOverviewStats, writePreparedTelemetry } from '@app/projections';
import { type Payload, takeRequestNumber } from '../payloads';

/** Messages per batch, as the live projection fetches them (DEFAULT_BATCH_SIZE). */
const MESSAGES_PER_BATCH = 64;

/** Milliseconds per batch for each step of the live apply, and for one model-stats recount after it. */
export type StatementFigures = Record<string, number> & { batches: number; spansPerBatch: number };

/**
 * Where a batch's time goes: the live apply's steps (applyTelemetryBatch) one at a time, each
 * timed on its own, `batches` batches of 64 exports into the stage's database (no processor
 * running), and after each batch one recount of the model-stats buckets it marked, as the
 * processor's refresher does every second during a drain.
 */
export async function measureStatements(databaseUrl: string, payload: Payload, projectId: string, batches: number): Promise<StatementFigures> {
  const ds = createDataSource({ url: databaseUrl, poolSize: 2, applicationName: 'spanlog-bench' });
  await ds.initialize();
  try {
    const position = { projection: 'bench-statements', version: 1, stream: 'BENCH' };
    await initCheckpoint(ds, position, 0);
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
      const keys = modelStatsKeysOf(facts);
      const seqs = messages.map(() => ++seq);
      spans += facts.spans.length;
      await ds.transaction(async (m) => {
        await timed('lock tables', () => lockTelemetryTables(m));
        await timed('model-stats mark before', () => markModelStatsDirty(m, keys));
        await timed('upserts (tombstones, traces, spans, scores)', () => writePreparedTelemetry(m, prepared));
        await timed('model-stats mark after', () => markModelStatsDirty(m, keys));
        await timed('record applied', () => recordApplied(m, position, seqs));
      });
      await timed('model-stats recount of the marked buckets (refresher)', () => refreshDirtyModelStats(ds, 100));
      await timed('overview-stats recount of the marked buckets (refresher)', () => refreshDirtyOverviewStats(ds, 100));
    }
    const perBatch = Object.fromEntries(Object.entries(ms).map(([step, total]) => [step, total / batches]));
    return { ...perBatch, batches, spansPerBatch: spans / batches };
  } finally {
    await ds.destroy();
  }
}
