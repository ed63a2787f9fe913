import type { JsMsg } from 'nats';
import type { DataSource, EntityManager } from 'typeorm';
import { type ChunkReader, PermanentMessageError, type StreamKey } from '@app/eventlog';
import type { RecountPace } from './stats/stats-buckets';
import type { PriceTables } from './telemetry/project-prices';

/** A stored message as a projection decodes it: a live delivery, a replayed one or a dead letter. */
export type StoredMessage = Pick<JsMsg, 'seq' | 'headers' | 'data'>;

/** What decoding may need besides the message: large requests are stored in the object store. */
export interface DecodeContext {
  /** A `ChunkReader`, or what a rebuild's worker thread has instead: the bytes its main thread read. */
  chunks: Pick<ChunkReader, 'read'>;
}

/** What preparing a batch may need: the projects' prices, read per batch so that a change reaches the next one. */
export interface PrepareContext {
  prices: PriceTables;
}

/** A projection's name and version (`telemetry@2`), as `projection_versions` and `projection_checkpoints` record them. */
export interface ProjectionIdentity {
  name: string;
  /** The version this code builds; newer than the serving one means rebuild. */
  version: number;
  /** The tables it writes, in the order its writers lock them. */
  tables: readonly string[];
}

/**
 * One projection of one stream, defined once (DESIGN "Projections"; shaped like emmett's
 * projections: the event types it handles and a handler of a batch in the caller's
 * transaction). The live runner, the rebuild, the replay, `spanlog verify` and `spanlog dlq
 * retry` all drive this definition: they differ in which transaction they apply in and which
 * live-only hooks they call, never in how a message becomes rows.
 */
export interface StreamProjection<Event, Batch = Event[], Applied = void> extends ProjectionIdentity {
  /** The stream it reads, and its durable consumer (without the deployment's prefix). */
  source: { stream: StreamKey; consumer: string };
  /** The message schemas it handles; `decode` refuses any other. */
  schemas: readonly string[];
  /** From a stored message to the event it states; `PermanentMessageError` when it can never be applied. */
  decode(msg: StoredMessage, context: DecodeContext): Promise<Event>;
  /** Folds and serializes decoded events, off the store's critical path (the live runner does it while the previous batch commits). */
  prepare(events: Event[], context: PrepareContext): Promise<Batch>;
  /**
   * Writes the batch's rows in the caller's transaction. Idempotent and order-insensitive, so a
   * redelivery, a retry, a replay or a rebuild writes the same rows; no side effect beyond them.
   */
  apply(tx: EntityManager, batch: Batch): Promise<Applied>;
}

/** What a projection's decode made of one stored message: the event, or why it can never be applied. */
export type Decoded<Event> = { ok: true; event: Event } | { ok: false; reason: string };

/**
 * Decodes one stored message the way every reader of a stream does: a message that can never
 * be applied (live dead-lettered it) is a reason, anything else (NATS unreachable) is thrown.
 */
export async function decodeStored<Event>(
  projection: Pick<StreamProjection<Event, unknown, unknown>, 'decode'>,
  msg: StoredMessage,
  context: DecodeContext,
): Promise<Decoded<Event>> {
  try {
    return { ok: true, event: await projection.decode(msg, context) };
  } catch (err) {
    if (err instanceof PermanentMessageError) return { ok: false, reason: err.message };
    throw err;
  }
}

/** One kind of bucket a derived projection recounts, on its own: a bucket that cannot be recounted holds back only its kind. */
export interface RecountedBuckets {
  name: string;
  /** Recounts up to `limit` marked buckets due at `pace` (all of them by default) in one transaction; resolves with how many. */
  recount(ds: DataSource, limit: number, pace?: RecountPace): Promise<number>;
  /** Drops the oldest due mark without recounting it, for a bucket whose recount keeps failing; resolves with the bucket, or null. */
  discardOldest(ds: DataSource, pace?: RecountPace): Promise<unknown>;
  /** What a recount costs per row its bucket counted (measured quiet), for a live refresher to pace itself by. */
  msPerRow: number;
}

/**
 * A projection counted from another projection's rows instead of read from a stream (model
 * stats from spans and scores): the source's apply marks what changed, in its transaction, and
 * its buckets' recounts count what is marked.
 */
export interface DerivedProjection extends ProjectionIdentity {
  /** The projection whose rows it counts. */
  derivedFrom: string;
  /** Its kinds of bucket, in the order they are recounted. */
  buckets: readonly RecountedBuckets[];
  /** Recounts up to `limit` marked buckets whatever their age, kind after kind; resolves with how many (a rebuild's drain). */
  refresh(ds: DataSource, limit: number): Promise<number>;
}
