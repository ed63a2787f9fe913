import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { JsMsg, MsgHdrs } from 'nats';
import { emptyFacts } from '@app/domain';
import { BLOB_HEADER, type ChunkReader, PermanentMessageError } from '@app/eventlog';
import { type BatchPreparer, type PreparedBatch, inProcessPreparer } from '../../rebuild/batch-preparer';
import type { DecodeContext } from '../../projection';
import type { PriceTables, ProjectPrices } from '../project-prices';
import type { RowsWritten } from '../rows-live-may-lack';
import { type TelemetryBatch, telemetryProjection } from '../telemetry.projection';
import type { BatchDone, BatchJob, FromWorker, PackedMessage, PreparedInWorker, PricesGiven, WorkerSetup } from './protocol';

/** The worker's compiled module, beside this one's (the apps run from dist; TypeScript under ts-jest has none). */
export const REBUILD_WORKER_ENTRY = join(__dirname, 'rebuild-worker.js');

interface Thread {
  worker: Worker;
  /** Jobs sent to it and not answered yet. */
  load: number;
}

interface Job {
  thread: Thread;
  resolve(done: BatchDone): void;
  reject(err: Error): void;
  /** The prices the worker was given for this job: a refold uses the same. */
  prices: Map<string, ProjectPrices>;
}

export interface WorkerPoolContext {
  chunks: Pick<ChunkReader, 'read'>;
  prices: PriceTables;
  /** What the workers tell of the messages whose rows the live tables may lack. */
  setup: WorkerSetup;
  onLiveMayLack(rows: RowsWritten): void;
}

/**
 * A telemetry rebuild's decode and prepare in `size` worker threads (`rebuild-worker.ts`):
 * each prepares whole batches, several in flight, and returns the serialized rows with the
 * little the write reads besides. The main thread reads the chunks stored in the object store
 * and the projects' prices (the workers have no connection), and writes in stream order.
 */
export class RebuildWorkerPool implements BatchPreparer<TelemetryBatch> {
  readonly workers: number;
  /**
   * Every thread busy with a batch and one more queued behind it while another is written, so
   * that no thread waits for the replay's next read: the replay reads on once at most
   * 2 × `size` + 1 batches wait for their write (the one being written included), at most
   * 2 × `size` of them still being prepared; so at most 2 × `size` + 2 batches are held at once.
   * With one batch a thread, the threads idled a quarter of the time (docs/BENCHMARKS.md).
   */
  readonly ahead: { unwritten: number; preparing: number };
  private readonly threads: Thread[];
  private readonly jobs = new Map<number, Job>();
  private lastJob = 0;
  private failure: Error | null = null;
  private closing = false;

  constructor(
    size: number,
    private readonly context: WorkerPoolContext,
    entry = REBUILD_WORKER_ENTRY,
  ) {
    this.workers = size;
    this.ahead = { unwritten: 2 * size + 1, preparing: 2 * size };
    this.threads = Array.from({ length: size }, () => this.startThread(entry));
  }

  async prepare(msgs: JsMsg[]): Promise<PreparedBatch<TelemetryBatch>> {
    const { data, messages } = await packBatch(msgs, this.context.chunks);
    const job = ++this.lastJob;
    const prices = new Map<string, ProjectPrices>();
    const thread = this.threads.reduce((a, b) => (b.load < a.load ? b : a));
    const done = await new Promise<BatchDone>((resolve, reject) => {
      // Checked here, after the packing's awaits: a failed thread answers nothing.
      if (this.failure) return reject(this.failure);
      this.jobs.set(job, { thread, resolve, reject, prices });
      thread.load++;
      const message: BatchJob = { type: 'batch', job, data, messages };
      thread.worker.postMessage(message, [data.buffer]);
    });
    for (const rows of done.liveMayLack) this.context.onLiveMayLack(rows);
    return { batch: done.batch && this.batchOf(done.batch, msgs, prices), skipped: done.skipped };
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private startThread(entry: string): Thread {
    const worker = new Worker(entry, { workerData: this.context.setup });
    const thread: Thread = { worker, load: 0 };
    worker.on('message', (message: FromWorker) => this.received(thread, message));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => {
      if (!this.closing) this.fail(new Error(`a rebuild worker thread stopped (exit code ${code})`));
    });
    return thread;
  }

  private received(thread: Thread, message: FromWorker): void {
    const job = this.jobs.get(message.job);
    if (!job) return;
    if (message.type === 'prices') {
      this.context.prices.pricesOf(message.projectIds).then(
        (prices) => {
          for (const [projectId, p] of prices) job.prices.set(projectId, p);
          const given = [...prices].map(([projectId, { version, definitions }]) => ({ projectId, version, definitions }));
          const answer: PricesGiven = { type: 'prices', job: message.job, prices: given };
          thread.worker.postMessage(answer);
        },
        (err: Error) => this.settle(message.job, (j) => j.reject(err)),
      );
      return;
    }
    if (message.type === 'failed') this.settle(message.job, (j) => j.reject(new Error(`rebuild worker: ${message.error}`)));
    else this.settle(message.job, (j) => j.resolve(message));
  }

  /** A job answered (or failed): off its thread's load. */
  private settle(id: number, how: (job: Job) => void): void {
    const job = this.jobs.get(id);
    if (!job) return;
    this.jobs.delete(id);
    job.thread.load--;
    how(job);
  }

  /** A thread that failed fails every batch in flight, and the pool: the rebuild stops rather than decode differently. */
  private fail(err: Error): void {
    this.failure ??= err;
    for (const id of [...this.jobs.keys()]) this.settle(id, (job) => job.reject(err));
  }

  /**
   * The batch the projection's `apply` writes: the worker's rows, its deletions and scores as
   * the facts, and the whole facts decoded again here should a tombstone call for them.
   */
  private batchOf(b: PreparedInWorker, msgs: JsMsg[], prices: Map<string, ProjectPrices>): TelemetryBatch {
    const refold = async () => {
      const again = inProcessPreparer(telemetryProjection, { chunks: this.context.chunks, prices: { pricesOf: async () => prices } });
      const { batch } = await again.prepare(msgs);
      if (!batch) throw new Error('a batch prepared in a worker thread decoded to nothing in the main thread');
      return batch.telemetry.facts;
    };
    return {
      telemetry: {
        facts: { ...emptyFacts(), scores: b.scores, deletions: b.deletions, scoreDeletions: b.scoreDeletions },
        mentioned: b.mentioned,
        rows: b.rows,
        refold,
      },
      orgOf: new Map(b.orgOf),
      seqs: b.seqs,
      // The tables the worker priced with, as this thread read them for it (the versions say which).
      prices: new Map(b.pricedWith.map(([projectId, version]) => [projectId, pricedAt(prices, projectId, version)])),
      spansToPrice: { count: b.spansToPrice.count, candidates: () => b.spansToPrice.candidates },
    };
  }
}

/** The prices a worker used for a project, which this thread gave it: anything else is a bug, never a silent other price. */
function pricedAt(prices: ReadonlyMap<string, ProjectPrices>, projectId: string, version: number): ProjectPrices {
  const given = prices.get(projectId);
  if (given?.version !== version)
    throw new Error(`a rebuild worker priced project ${projectId} with version ${version}, not the one it was given`);
  return given;
}

/** Each header's first value: all `headerReader` reads. */
const headersOf = (h: MsgHdrs | undefined): Record<string, string> => (h ? Object.fromEntries(h.keys().map((k) => [k, h.get(k)])) : {});

/**
 * The batch's bytes in one buffer to transfer (the messages' own may share the client's
 * buffers, which must not be detached), a chunk stored in the object store read here.
 */
async function packBatch(
  msgs: JsMsg[],
  chunks: DecodeContext['chunks'],
): Promise<{ data: Uint8Array<ArrayBuffer>; messages: PackedMessage[] }> {
  const parts: Uint8Array[] = [];
  const messages: PackedMessage[] = [];
  let size = 0;
  for (const msg of msgs) {
    let bytes = msg.data;
    let chunkError: string | undefined;
    if (msg.headers?.has(BLOB_HEADER)) {
      try {
        bytes = await chunks.read(msg);
      } catch (err) {
        if (!(err instanceof PermanentMessageError)) throw err;
        chunkError = err.message;
      }
    }
    messages.push({ seq: msg.seq, headers: headersOf(msg.headers), start: size, end: size + bytes.length, chunkError });
    parts.push(bytes);
    size += bytes.length;
  }
  const data = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    data.set(part, at);
    at += part.length;
  }
  return { data, messages };
}
