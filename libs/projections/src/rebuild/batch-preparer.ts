import { setImmediate } from 'node:timers/promises';
import type { JsMsg } from 'nats';
import { type DecodeContext, type PrepareContext, type StreamProjection, decodeStored } from '../projection';

/** A message that can never be applied (live dead-lettered it), with why. */
export interface SkippedMessage {
  seq: number;
  reason: string;
}

/** One batch of stored messages, decoded and prepared: what to write (null: nothing), and what was skipped. */
export interface PreparedBatch<Batch> {
  batch: Batch | null;
  skipped: SkippedMessage[];
}

/**
 * Decodes and prepares whole batches of a rebuild's messages: in this thread
 * (`inProcessPreparer`), or in worker threads (the telemetry projection's `RebuildWorkerPool`).
 * Either gives the same batches; the replay writes them one at a time, in stream order.
 */
export interface BatchPreparer<Batch> {
  /**
   * How far the replay reads ahead (bounded memory): it reads the next batch once at most
   * `unwritten` batches wait for their write (the one being written included) and at most
   * `preparing` of them are still being prepared.
   */
  readonly ahead: { unwritten: number; preparing: number };
  /** Threads decoding: 0 in this thread. */
  readonly workers: number;
  prepare(msgs: JsMsg[]): Promise<PreparedBatch<Batch>>;
  /** Stops any threads it started; the preparer is not used again. */
  close(): Promise<void>;
}

/**
 * The definition's `decode` (through `decodeStored`) and `prepare`, in this thread, one batch
 * ahead of the write. `onDecoded` sees each decoded event with its sequence.
 */
export function inProcessPreparer<Event, Batch>(
  projection: Pick<StreamProjection<Event, Batch, unknown>, 'decode' | 'prepare'>,
  context: DecodeContext & PrepareContext,
  onDecoded?: (seq: number, event: Event) => void,
): BatchPreparer<Batch> {
  return {
    // As the live runner: the next batch is prepared while the previous one is written.
    ahead: { unwritten: 1, preparing: 0 },
    workers: 0,
    async prepare(msgs) {
      const events: Event[] = [];
      const skipped: SkippedMessage[] = [];
      for (const msg of msgs) {
        // The event loop turns between messages, so the write in flight sends its statements meanwhile.
        await setImmediate();
        const decoded = await decodeStored(projection, msg, context);
        if (!decoded.ok) {
          skipped.push({ seq: msg.seq, reason: decoded.reason });
          continue;
        }
        onDecoded?.(msg.seq, decoded.event);
        events.push(decoded.event);
      }
      return { batch: events.length ? await projection.prepare(events, context) : null, skipped };
    },
    close: async () => undefined,
  };
}
