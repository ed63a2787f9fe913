import type { JsMsg, MsgHdrs, StoredMsg } from 'nats';
import type { NatsResources } from './nats-resources';
import { type StreamKey, isNotFound } from './streams';

/**
 * A message as a stream stores it, whether it came from a consumer or a direct get: the
 * operator's tools read both ways and handle them alike.
 */
export interface StreamMessage {
  seq: number;
  subject: string;
  headers: MsgHdrs | undefined;
  data: Uint8Array;
  /** When the stream stored it. */
  storedAt: Date;
}

export const fromConsumed = (msg: JsMsg): StreamMessage => ({
  seq: msg.seq,
  subject: msg.subject,
  headers: msg.headers,
  data: msg.data,
  storedAt: new Date(Math.floor(msg.info.timestampNanos / 1e6)),
});

export const fromStored = (msg: StoredMsg): StreamMessage => ({
  seq: msg.seq,
  subject: msg.subject,
  headers: msg.header,
  data: msg.data,
  storedAt: msg.time,
});

/**
 * Removes one message by sequence, its bytes erased; false when it was gone already (another
 * run or process removed it). Never a purge: on nats-server 2.9 a purge moves every consumer
 * of the stream past messages it has not delivered (STACK_NOTES).
 */
export async function removeStoredMessage(nats: NatsResources, stream: StreamKey, seq: number): Promise<boolean> {
  try {
    return await nats.jsm.streams.deleteMessage(nats.layout.streamName(stream), seq, true);
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

/** The message (or the stream) is not there. */
export const isMissing = (err: unknown): boolean => isNotFound(err) || /no message found/i.test(String(err));
