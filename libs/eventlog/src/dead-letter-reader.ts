import { DEAD_LETTER_HEADERS } from './dead-letter';
import type { NatsResources } from './nats-resources';
import { replayStream, streamLastSeq } from './replay';
import { type StreamMessage, fromConsumed, fromStored, isMissing } from './stored-message';

/** Dead letters read per fetch: a dead letter holds a whole message (up to the server's max payload). */
const READ_BATCH = 16;

export interface DeadLetter {
  /** Its sequence in the dead-letter stream: what `spanlog dlq show|retry --id` take. */
  id: number;
  reason: string | null;
  /** Where it came from: stream and durable consumer names (prefix included), and its sequence and subject there. */
  stream: string | null;
  consumer: string | null;
  seq: number | null;
  subject: string | null;
  /** When it was dead-lettered. */
  time: string;
}

/** Reads a dead letter's headers; a header that is missing (the stream takes anything on its subjects) is null. */
export function deadLetterOf(msg: Pick<StreamMessage, 'seq' | 'headers' | 'storedAt'>): DeadLetter {
  const get = (name: string) => (msg.headers?.has(name) ? msg.headers.get(name) : null);
  const seq = Number(get(DEAD_LETTER_HEADERS.seq));
  return {
    id: msg.seq,
    reason: get(DEAD_LETTER_HEADERS.reason),
    stream: get(DEAD_LETTER_HEADERS.stream),
    consumer: get(DEAD_LETTER_HEADERS.consumer),
    seq: Number.isSafeInteger(seq) && seq > 0 ? seq : null,
    subject: get(DEAD_LETTER_HEADERS.subject),
    time: msg.storedAt.toISOString(),
  };
}

/**
 * Hands over every dead letter in order, data included when `withData`, a batch at a time:
 * the stream may hold many, each as large as a message.
 */
export async function readDeadLetters(
  nats: NatsResources,
  options: { withData: boolean; fromSource?: { stream: string; consumer: string } },
  onBatch: (msgs: StreamMessage[]) => Promise<void>,
): Promise<void> {
  const toSeq = await streamLastSeq(nats, 'deadLetter');
  const filterSubject = options.fromSource
    ? nats.layout.deadLetterSubject(options.fromSource.stream, options.fromSource.consumer)
    : undefined;
  await replayStream(
    nats,
    'deadLetter',
    { fromSeq: 1, toSeq, batchSize: READ_BATCH, filterSubject, headersOnly: !options.withData },
    (msgs) => onBatch(msgs.map(fromConsumed)),
  );
}

/** The source sequences a consumer dead-lettered and that are still in the dead-letter stream. */
export async function deadLetteredSeqs(nats: NatsResources, source: { stream: string; consumer: string }): Promise<Set<number>> {
  const seqs = new Set<number>();
  await readDeadLetters(nats, { withData: false, fromSource: source }, async (msgs) => {
    for (const msg of msgs) {
      const { seq } = deadLetterOf(msg);
      if (seq !== null) seqs.add(seq);
    }
  });
  return seqs;
}

/** One dead letter with its data, or null when the stream holds no message `id`. */
export async function getDeadLetter(nats: NatsResources, id: number): Promise<StreamMessage | null> {
  try {
    return fromStored(await nats.jsm.streams.getMessage(nats.layout.streamName('deadLetter'), { seq: id }));
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}
