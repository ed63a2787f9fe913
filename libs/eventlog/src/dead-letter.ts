import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg, type MsgHdrs, nanos } from 'nats';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { consumerAppliedMessages, deadLetters } from '@app/metrics';
import { toNatsHeaders } from './headers';
import { isNotFound } from './streams';
import { publishWithRetry } from './publish-retry';

/** Where a consumer's messages that can never be applied go, and who they came from. */
export interface DeadLetterRoute {
  js: JetStreamClient;
  stream: string;
  durable: string;
  /** The consumer's name in metrics: the durable name without the deployment's prefix (the durable name by default). */
  name?: string;
  deadLetterSubject: string;
  logger: Logger;
  /**
   * Called before a message goes to the dead-letter stream, e.g. to record it as handled
   * beside the applied ones; when it fails, the message is retried later instead.
   */
  onDeadLetter?(msg: JsMsg, reason: string): Promise<void>;
}

/** What a consumer adds to a message it dead-letters, beside the message's own headers. */
export const DEAD_LETTER_HEADERS = {
  reason: 'Spanlog-DLQ-Reason',
  stream: 'Spanlog-DLQ-Stream',
  consumer: 'Spanlog-DLQ-Consumer',
  seq: 'Spanlog-DLQ-Seq',
  subject: 'Spanlog-DLQ-Subject',
} as const;

/** The headers of a message being dead-lettered: its own, then why and where from. */
export function deadLetterHeaders(
  source: { headers: MsgHdrs | undefined; stream: string; consumer: string; seq: number; subject: string },
  reason: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of source.headers ?? []) headers[k] = v[0];
  return {
    ...headers,
    [DEAD_LETTER_HEADERS.reason]: reason.slice(0, 2_000),
    [DEAD_LETTER_HEADERS.stream]: source.stream,
    [DEAD_LETTER_HEADERS.consumer]: source.consumer,
    [DEAD_LETTER_HEADERS.seq]: String(source.seq),
    [DEAD_LETTER_HEADERS.subject]: source.subject,
  };
}

/** Backoff before the n-th redelivery of a failing message: 1 s, 2 s, 4 s … capped at 30 s. */
export const redeliveryDelayMs = (deliveryCount: number): number => Math.min(30_000, 1_000 * 2 ** Math.max(0, deliveryCount - 1));

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const consumerLabel = (route: DeadLetterRoute): string => route.name ?? route.durable;

/**
 * The consumer's counter of applied messages. Both its series, applied and dead-lettered,
 * exist (at 0) from here on, so a scrape before the first message shows them.
 */
export function appliedCounter(route: DeadLetterRoute): Counter.Internal {
  deadLetters.inc({ stream: route.stream, consumer: consumerLabel(route) }, 0);
  const applied = consumerAppliedMessages.labels({ consumer: consumerLabel(route) });
  applied.inc(0);
  return applied;
}

/**
 * Creates the durable pull consumer, or brings an existing one's ack wait up to date. Spanlog
 * dead-letters with the reason itself, so the server never gives up on a message.
 */
export async function ensureDurableConsumer(jsm: JetStreamManager, stream: string, durable: string, ackWaitMs: number): Promise<void> {
  const config = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(ackWaitMs),
    max_deliver: -1,
    max_ack_pending: 10_000,
  };
  try {
    const info = await jsm.consumers.info(stream, durable);
    if (info.config.ack_wait !== config.ack_wait) await jsm.consumers.update(stream, durable, { ack_wait: config.ack_wait });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await jsm.consumers.add(stream, config);
    } catch (addErr) {
      if (!/already in use|exists/i.test(String(addErr))) throw addErr;
    }
  }
}

export function retryLater(route: DeadLetterRoute, msg: JsMsg, err: unknown): void {
  const delay = redeliveryDelayMs(msg.info.deliveryCount);
  route.logger.warn(
    { seq: msg.seq, deliveries: msg.info.deliveryCount, delayMs: delay, err: errorText(err) },
    'message failed; will retry',
  );
  msg.nak(delay);
}

/** Moves a message to the dead-letter stream with the reason and where it came from, then terminates it. */
export async function deadLetter(route: DeadLetterRoute, msg: JsMsg, reason: string): Promise<void> {
  const headers = deadLetterHeaders(
    { headers: msg.headers, stream: route.stream, consumer: route.durable, seq: msg.seq, subject: msg.subject },
    reason,
  );
  try {
    await route.onDeadLetter?.(msg, reason);
    await publishWithRetry(route.js, route.deadLetterSubject, msg.data, {
      headers: toNatsHeaders(headers),
      msgID: `${route.stream}:${route.durable}:${msg.seq}`,
    });
    // No reason: nats-server 2.9 reads `+TERM <reason>` as an unknown acknowledgement and
    // redelivers the message after the ack wait, so a letter whose cause was fixed meanwhile
    // was applied live too (the reason is in the letter's headers).
    msg.term();
    deadLetters.inc({ stream: route.stream, consumer: consumerLabel(route) });
    route.logger.error({ seq: msg.seq, subject: msg.subject, reason }, 'message dead-lettered');
  } catch (err) {
    route.logger.error({ seq: msg.seq, err: errorText(err) }, 'dead-lettering failed; will retry');
    msg.nak(redeliveryDelayMs(msg.info.deliveryCount));
  }
}

/** A message that failed: retried with backoff, or dead-lettered once it failed `maxDeliveries` times. */
export async function onFailure(route: DeadLetterRoute, msg: JsMsg, err: unknown, maxDeliveries: number): Promise<void> {
  if (msg.info.deliveryCount >= maxDeliveries) await deadLetter(route, msg, `failed ${msg.info.deliveryCount} times: ${errorText(err)}`);
  else retryLater(route, msg, err);
}
