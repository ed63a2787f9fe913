import type { NatsConnection } from 'nats';
import { StreamLayout } from '@app/eventlog';
import type { Payload } from '../payloads';

export interface PublishFigures {
  messages: number;
  seconds: number;
  messagesPerS: number;
  itemsPerS: number;
  mbPerS: number;
  inFlight: number;
}

/** Distinct bodies cycled through: enough to defeat any caching, few enough to render up front. */
const BODY_POOL = 32;

/**
 * The ceiling of the API's append on this machine: asynchronous publishes of the same bytes
 * to a stream configured like INGEST, `inFlight` awaited together (STACK_NOTES), with no
 * headers or message id. The stream is the bench's own and is deleted afterwards.
 */
export async function measureJetStreamPublish(
  nc: NatsConnection,
  prefix: string,
  payload: Payload,
  durationS: number,
  inFlight = 128,
): Promise<PublishFigures> {
  const jsm = await nc.jetstreamManager();
  const js = nc.jetstream({ timeout: 10_000 });
  const name = `${prefix}BENCH_RAW`;
  const subject = `${prefix}benchraw.otel`;
  await jsm.streams.add({ ...new StreamLayout(prefix).streamConfig('ingest'), name, subjects: [`${prefix}benchraw.>`] });
  try {
    const bodies = Array.from({ length: BODY_POOL }, (_, i) => Buffer.from(payload.render(0xfff00000 + i)));
    const pending = new Set<Promise<unknown>>();
    let messages = 0;
    let bytes = 0;
    const started = performance.now();
    const end = started + durationS * 1_000;
    for (let i = 0; performance.now() < end; i++) {
      const body = bodies[i % BODY_POOL];
      const ack: Promise<unknown> = js.publish(subject, body).then(() => {
        messages++;
        bytes += body.byteLength;
        pending.delete(ack);
      });
      pending.add(ack);
      if (pending.size >= inFlight) await Promise.race(pending);
    }
    await Promise.all(pending);
    const seconds = (performance.now() - started) / 1_000;
    return {
      messages,
      seconds,
      messagesPerS: messages / seconds,
      itemsPerS: (messages * payload.items) / seconds,
      mbPerS: bytes / 1e6 / seconds,
      inFlight,
    };
  } finally {
    await jsm.streams.delete(name);
  }
}
