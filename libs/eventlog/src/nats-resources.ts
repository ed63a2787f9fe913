import { Events, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import { connectNats } from './nats-client';
import { StreamLayout, ensureStreams } from './streams';

const HEADER_ROOM_BYTES = 8 * 1024;

/** Where the event log lives and how its streams are laid out (AppConfig holds all three). */
export interface EventLogSettings {
  natsServers: string[];
  streamPrefix: string;
  streamReplicas: number;
}

/** One process's NATS connection and JetStream handles, with streams ensured. */
export class NatsResources {
  private connected = true;

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly layout: StreamLayout,
    /** Largest message the server takes, less room for our headers. */
    readonly maxMessageBytes: number,
  ) {
    void this.followConnection();
  }

  /** Whether the server can be reached now: false from a disconnect until the client reconnects. */
  get reachable(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  private async followConnection(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === Events.Disconnect) this.connected = false;
      else if (status.type === Events.Reconnect) this.connected = true;
    }
  }

  /** `log` hears of the streams whose replicas were changed to the configured count. */
  static async open(
    { natsServers, streamPrefix, streamReplicas }: EventLogSettings,
    name: string,
    log: (line: string) => void = () => undefined,
  ): Promise<NatsResources> {
    const nc = await connectNats(natsServers, name);
    try {
      const jsm = await nc.jetstreamManager({ timeout: 5_000 });
      const layout = new StreamLayout(streamPrefix, streamReplicas);
      for (const { stream, from, to } of await ensureStreams(jsm, layout))
        log(
          `stream ${stream}: replicas changed from ${from} to ${to} (SPANLOG_STREAM_REPLICAS); the server moves its data in the background`,
        );
      // Read once: the client forgets the server's info while it reconnects, and a request
      // arriving then must still be chunked (and answered 503 by the publish), not fail.
      return new NatsResources(nc, nc.jetstream({ timeout: 5_000 }), jsm, layout, nc.info!.max_payload - HEADER_ROOM_BYTES);
    } catch (err) {
      await nc.close();
      const message = (err as Error).message;
      // A single server refuses replicas ("non-clustered mode"); a cluster too small has "no suitable peers".
      const hint = /replicas|suitable peers/i.test(message)
        ? `SPANLOG_STREAM_REPLICAS=${streamReplicas} needs a JetStream cluster of at least ${streamReplicas} servers`
        : 'start nats-server with -js';
      throw new Error(`JetStream is not available at ${natsServers.join(', ')}: ${message} (${hint})`);
    }
  }

  /** Flushes pending acks and publishes, then closes. */
  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    await this.nc.drain();
  }
}
