import { DeliverPolicy, type JsMsg, type MsgRequest } from 'nats';
import type { NatsResources } from './nats-resources';
import { type StreamKey, isNotFound } from './streams';

export interface ReplayRange {
  /** First stream sequence to read. */
  fromSeq: number;
  /** Reading stops once a message at or past this sequence has been read, or the stream has nothing more. */
  toSeq: number;
  /** Most messages handed to `onBatch` at once. */
  batchSize: number;
  /** Only messages on these subjects (one subject or wildcard: nats-server 2.9 takes one filter). */
  filterSubject?: string;
  /** Headers without data: for passes that only need sequences, subjects and envelopes. */
  headersOnly?: boolean;
}

/** The highest sequence a stream has stored so far (0 while empty). */
export async function streamLastSeq(nats: NatsResources, stream: StreamKey): Promise<number> {
  return (await nats.jsm.streams.info(nats.layout.streamName(stream))).state.last_seq;
}

/** The sequence of the first message stored at or after `seq`, or null when there is none. */
export async function nextStoredSeq(nats: NatsResources, stream: StreamKey, seq: number): Promise<number | null> {
  try {
    // The server's message get takes `next_by_subj` (2.9 and later); the client types it for direct gets only.
    const query = { seq, next_by_subj: `${nats.layout.subjectRoot(stream)}.>` } as unknown as MsgRequest;
    return (await nats.jsm.streams.getMessage(nats.layout.streamName(stream), query)).seq;
  } catch (err) {
    if (/no message found/i.test(String(err))) return null;
    throw err;
  }
}

/**
 * The sequence of the first message on `filterSubject` (one subject or wildcard; every
 * subject of the stream by default) that the stream stored at or after `since`, or null when
 * there is none. The server finds it from its own index, without reading what comes before.
 */
export async function firstSeqStoredSince(
  nats: NatsResources,
  stream: StreamKey,
  since: Date,
  filterSubject?: string,
): Promise<number | null> {
  const consumer = await nats.js.consumers.get(nats.layout.streamName(stream), {
    deliver_policy: DeliverPolicy.StartTime,
    opt_start_time: since.toISOString(),
    headers_only: true,
    ...(filterSubject ? { filterSubjects: filterSubject } : {}),
  });
  try {
    // Nothing waiting means nothing to wait for: an empty answer at once instead of a fetch's time-out.
    if ((await consumer.info()).num_pending === 0) return null;
    const first = await consumer.next({ expires: 5_000 });
    return first ? first.seq : null;
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

/**
 * The durable consumer's ack floor (0 while the consumer does not exist yet): every message at
 * or below it was acknowledged or skipped. No proof that it was applied: a purge on nats-server
 * 2.9 moves it past messages never delivered. Projections record what they applied.
 */
export async function consumerAckFloor(nats: NatsResources, stream: StreamKey, consumer: string): Promise<number> {
  try {
    return (await nats.jsm.consumers.info(nats.layout.streamName(stream), nats.layout.consumerName(consumer))).ack_floor.stream_seq;
  } catch (err) {
    if (isNotFound(err)) return 0;
    throw err;
  }
}

/**
 * Messages a durable consumer has not acknowledged: not yet delivered, or delivered and not yet
 * handled. While the consumer does not exist yet, every message the stream holds (it will
 * deliver them all). A projection that acknowledges after its commit has applied the rest.
 */
export async function consumerUnacknowledged(nats: NatsResources, stream: StreamKey, consumer: string): Promise<number> {
  try {
    const info = await nats.jsm.consumers.info(nats.layout.streamName(stream), nats.layout.consumerName(consumer));
    return info.num_pending + info.num_ack_pending;
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return (await nats.jsm.streams.info(nats.layout.streamName(stream))).state.messages;
  }
}

/** A durable consumer's messages not yet delivered to anyone, by its name without the deployment's prefix. */
export interface ConsumerBacklog {
  consumer: string;
  pending: number;
}

/** The backlog of each of this deployment's durable consumers on a stream (ephemeral readers such as replays are left out). */
export async function consumerBacklogs(nats: NatsResources, stream: StreamKey): Promise<ConsumerBacklog[]> {
  const backlogs: ConsumerBacklog[] = [];
  const { prefix } = nats.layout;
  for await (const info of nats.jsm.consumers.list(nats.layout.streamName(stream))) {
    const durable = info.config.durable_name;
    if (durable?.startsWith(prefix)) backlogs.push({ consumer: durable.slice(prefix.length), pending: info.num_pending });
  }
  return backlogs;
}

/** Empty fetches in a row, with messages waiting, before a replay counts as stalled. */
const MAX_EMPTY_FETCHES = 4;

/**
 * Reads a stream in order from `fromSeq` with an ordered (ephemeral, unacked) consumer and
 * hands it over in batches, each awaited before the next is fetched. Purged sequences are
 * simply absent. Returns the last sequence read (`fromSeq - 1` when there was nothing).
 *
 * The consumer's own count of what is still waiting bounds every fetch, so the end of the
 * stream is met at once instead of after a fetch's wait, and a range whose last sequence
 * was purged still ends.
 */
export async function replayStream(
  nats: NatsResources,
  stream: StreamKey,
  range: ReplayRange,
  onBatch: (msgs: JsMsg[]) => Promise<void>,
): Promise<number> {
  let lastSeq = range.fromSeq - 1;
  if (range.fromSeq > range.toSeq) return lastSeq;
  const consumer = await nats.js.consumers.get(nats.layout.streamName(stream), {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: range.fromSeq,
    ...(range.filterSubject ? { filterSubjects: range.filterSubject } : {}),
    ...(range.headersOnly ? { headers_only: true } : {}),
  });
  try {
    let waiting = (await consumer.info()).num_pending;
    let emptyFetches = 0;
    while (waiting > 0 && lastSeq < range.toSeq) {
      const batch: JsMsg[] = [];
      const iter = await consumer.fetch({ max_messages: Math.min(range.batchSize, waiting), expires: 5_000 });
      for await (const msg of iter) {
        if (lastSeq >= range.toSeq) break;
        batch.push(msg);
        lastSeq = msg.seq;
        waiting = msg.info.pending;
      }
      if (!batch.length) {
        // An ordered consumer that missed a delivery (a client too slow to read, on a loaded
        // machine) re-creates itself from the next sequence and the fetch ends empty: ask again.
        if (++emptyFetches < MAX_EMPTY_FETCHES) continue;
        throw new Error(
          `replay of ${stream} stalled after sequence ${lastSeq} with ${waiting} messages waiting (${MAX_EMPTY_FETCHES} fetches in a row returned nothing)`,
        );
      }
      emptyFetches = 0;
      await onBatch(batch);
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return lastSeq;
}
