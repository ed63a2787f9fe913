import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, type JetStreamClient, type JetStreamPublishOptions, type NatsError, type PubAck } from 'nats';

/**
 * How long one publish keeps trying before its caller gives up (the API then answers 503 with
 * Retry-After). A stream's followers wait a random 4–9 s (nats-server's Raft election timeout)
 * before electing a new leader: `npm run test:cluster` measured elections of 4.4–7.4 s after a
 * leader was killed (docs/SCALING.md "JetStream cluster"), which this window outlasts. It stays
 * under a client's own timeout (an OpenTelemetry exporter waits 10 s), so a slower election is
 * a 503 the client retries, not a request it gave up on while we still tried.
 */
export const PUBLISH_RETRY_WINDOW_MS = 8_000;

/** How long one attempt waits for its acknowledgement, unless the caller says otherwise. */
export const PUBLISH_ATTEMPT_TIMEOUT_MS = 5_000;

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 1_000;
/** An attempt shorter than this could not be acknowledged even by a healthy stream under load. */
const MIN_ATTEMPT_MS = 250;

/**
 * Failures a leader election or a reconnect causes, which a later attempt of the same message
 * may not meet: no server answered for the subject (no leader yet), no acknowledgement in time
 * (the request went to the leader that died), the connection dropped, or JetStream said it is
 * unavailable for now (503 from its API, "no suitable peers" while a peer is down).
 */
export function isTransientPublishError(err: unknown): boolean {
  const e = err as Partial<NatsError> | undefined;
  if (!e || typeof e !== 'object') return false;
  if (e.code === ErrorCode.NoResponders || e.code === ErrorCode.Timeout || e.code === ErrorCode.Disconnect) return true;
  if (e.api_error?.code === 503) return true;
  return /no suitable peers|temporarily unavailable|jetstream not (enabled|available)/i.test(String(e.api_error?.description ?? e.message));
}

export interface PublishRetryOptions {
  /** How long all attempts together may take. */
  windowMs?: number;
  /** How long one attempt waits for its acknowledgement (cut to what is left of the window). */
  attemptTimeoutMs?: number;
}

/**
 * Publishes one message, retrying transient failures with a growing pause until the window is
 * spent, then rethrowing the last failure. Every attempt carries the same `msgID`, so an
 * attempt that was stored but whose acknowledgement was lost is not stored twice by the next.
 */
export async function publishWithRetry(
  js: JetStreamClient,
  subject: string,
  payload: Uint8Array | string,
  options: Partial<JetStreamPublishOptions> & { msgID: string },
  { windowMs = PUBLISH_RETRY_WINDOW_MS, attemptTimeoutMs = PUBLISH_ATTEMPT_TIMEOUT_MS }: PublishRetryOptions = {},
): Promise<PubAck> {
  const deadline = performance.now() + windowMs;
  for (let attempt = 0; ; attempt++) {
    const left = deadline - performance.now();
    try {
      return await js.publish(subject, payload, { ...options, timeout: Math.max(MIN_ATTEMPT_MS, Math.min(attemptTimeoutMs, left)) });
    } catch (err) {
      // The last pause is cut so that one more attempt still fits in the window.
      const pause = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt, deadline - performance.now() - MIN_ATTEMPT_MS);
      if (!isTransientPublishError(err) || pause < 0) throw err;
      await sleep(pause);
    }
  }
}
