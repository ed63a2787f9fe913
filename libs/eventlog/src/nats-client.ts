import { type NatsConnection, connect } from 'nats';

/**
 * Connects with a bounded wait, so a missing server is one clear error, never a hang. With
 * several servers (a cluster), the client reconnects to another when its own goes away.
 */
export async function connectNats(servers: string[], name: string): Promise<NatsConnection> {
  try {
    return await connect({
      servers,
      name,
      timeout: 5_000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // Otherwise every request (each JetStream publish) captures a stack trace up front, to
      // decorate a timeout that our callers turn into their own error anyway.
      noAsyncTraces: true,
    });
  } catch (err) {
    throw new Error(`NATS is not reachable at ${servers.join(', ')}: ${(err as Error).message}`);
  }
}
