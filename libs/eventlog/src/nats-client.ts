import { type NatsConnection, connect } from 'nats';

/** Connects with a bounded wait, so a missing server is one clear error, never a hang. */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  try {
    return await connect({
      servers: url,
      name,
      timeout: 5_000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // Otherwise every request (each JetStream publish) captures a stack trace up front, to
      // decorate a timeout that our callers turn into their own error anyway.
      noAsyncTraces: true,
    });
  } catch (err) {
    throw new Error(`NATS is not reachable at ${url}: ${(err as Error).message}`);
  }
}
