import { Events, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import { connectNats } from './nats-client';
import { StreamLayout, ensureStreams } from './streams';

const HEADER_ROOM_BYTES = 8 * 1024;

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

  static async open(url: string, name: string, streamPrefix: string): Promise<NatsResources> {
    const nc = await connectNats(url, name);
    try {
      const jsm = await nc.jetstreamManager({ timeout: 5_000 });
      const layout = new StreamLayout(streamPrefix);
      await ensureStreams(jsm, layout);
      // Read once: the client forgets the server's info while it reconnects, and a request
      // arriving then must still be chunked (and answered 503 by the publish), not fail.
      return new NatsResources(nc, nc.jetstream({ timeout: 5_000 }), jsm, layout, nc.info!.max_payload - HEADER_ROOM_BYTES);
    } catch (err) {
      await nc.close();
      throw new Error(`JetStream is not available at ${url}: ${(err as Error).message} (start nats-server with -js)`);
    }
  }

  /** Flushes pending acks and publishes, then closes. */
  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    await this.nc.drain();
  }
}
