import { parentPort, workerData } from 'node:worker_threads';
import { PermanentMessageError, toNatsHeaders } from '@app/eventlog';
import type { SkippedMessage } from '../../rebuild/batch-preparer';
import { decodeStored } from '../../projection';
import type { DecodedIngestMessage } from '../decode-ingest-message';
import { type PriceTables, type ProjectPrices, projectPriceTable } from '../project-prices';
import { type RowsWritten, liveMayLackRowsOf, rowsWrittenBy } from '../rows-live-may-lack';
import { pricingCandidates } from '../merged-costs';
import { telemetryProjection } from '../telemetry.projection';
import type { BatchDone, BatchJob, FromWorker, PackedMessage, PricesGiven, ToWorker, WorkerSetup } from './protocol';

/**
 * A telemetry rebuild's worker thread (`RebuildWorkerPool`): decodes and prepares whole
 * batches with the projection's own `decode` and `prepare`, asking the main thread for the
 * projects' prices, and sends back the serialized rows and what the write and the swap read.
 */
if (!parentPort) throw new Error('the rebuild worker runs in a worker thread');
const port = parentPort;
const liveMayLack = liveMayLackRowsOf(workerData as WorkerSetup);
const send = (message: FromWorker) => port.postMessage(message);

/** Compiled price tables, per project, while its version stays. */
const compiled = new Map<string, ProjectPrices>();
/** The jobs waiting for their prices. */
const askedPrices = new Map<number, (given: PricesGiven) => void>();

/** The projects' prices as the main thread reads them for this job. */
const pricesOf = (job: number): PriceTables => ({
  async pricesOf(projectIds) {
    const given = await new Promise<PricesGiven>((resolve) => {
      askedPrices.set(job, resolve);
      send({ type: 'prices', job, projectIds: [...projectIds] });
    });
    const prices = new Map<string, ProjectPrices>();
    for (const { projectId, version, definitions } of given.prices) {
      let kept = compiled.get(projectId);
      if (kept?.version !== version) {
        kept = { version, definitions, table: projectPriceTable(definitions) };
        compiled.set(projectId, kept);
      }
      prices.set(projectId, kept);
    }
    return prices;
  },
});

/** The main thread read the message's chunk from the object store (or why it could not). */
const chunkOf = ({ chunkError }: PackedMessage) => ({
  read: async (msg: { data: Uint8Array }) => {
    if (chunkError !== undefined) throw new PermanentMessageError(chunkError);
    return msg.data;
  },
});

async function prepareBatch({ job, data, messages }: BatchJob): Promise<BatchDone> {
  const events: DecodedIngestMessage[] = [];
  const skipped: SkippedMessage[] = [];
  const rowsLiveMayLack: RowsWritten[] = [];
  for (const packed of messages) {
    const msg = { seq: packed.seq, headers: toNatsHeaders(packed.headers), data: data.subarray(packed.start, packed.end) };
    const decoded = await decodeStored(telemetryProjection, msg, { chunks: chunkOf(packed) });
    if (!decoded.ok) {
      skipped.push({ seq: packed.seq, reason: decoded.reason });
      continue;
    }
    if (liveMayLack(packed.seq)) rowsLiveMayLack.push(rowsWrittenBy(decoded.event));
    events.push(decoded.event);
  }
  if (!events.length) return { type: 'done', job, batch: null, skipped, liveMayLack: rowsLiveMayLack };
  const { telemetry, orgOf, seqs, prices } = await telemetryProjection.prepare(events, { prices: pricesOf(job) });
  const { facts, mentioned, rows } = telemetry;
  return {
    type: 'done',
    job,
    batch: {
      rows,
      mentioned,
      scores: facts.scores,
      deletions: facts.deletions,
      scoreDeletions: facts.scoreDeletions,
      orgOf: [...orgOf],
      seqs,
      pricedWith: [...prices].map(([projectId, { version }]) => [projectId, version]),
      spansToPrice: { count: facts.spans.length, candidates: pricingCandidates(facts.spans) },
    },
    skipped,
    liveMayLack: rowsLiveMayLack,
  };
}

/**
 * The batches one at a time, in the order sent. The pool sends the next batch while this one
 * is prepared so that the thread never waits for it; prepared side by side, at each other's
 * awaits, the two finished together, each about a batch's time later than alone, and the
 * writes that wait for them came in pairs with Postgres idle in between.
 */
let preparing: Promise<void> = Promise.resolve();

port.on('message', (message: ToWorker) => {
  if (message.type === 'prices') {
    askedPrices.get(message.job)?.(message);
    askedPrices.delete(message.job);
    return;
  }
  preparing = preparing.then(() =>
    prepareBatch(message).then(send, (err: unknown) =>
      send({ type: 'failed', job: message.job, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    ),
  );
});
