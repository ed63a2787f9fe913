import type { JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import { connectNats } from './nats-client';
import { StreamLayout, ensureStreams } from './streams';

/** One process's NATS connection and JetStream handles, with streams ensured. */
export class NatsResources {
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly layout: StreamLayout,
  ) {}

  static async open(url: string, name: string, streamPrefix: string): Promise<NatsResources> {
    const nc = await connectNats(url, name);
    try {
      const jsm = await nc.jetstreamManager({ timeout: 5_000 });
      const layout = new StreamLayout(streamPrefix);
      await ensureStreams(jsm, layout);
      return new NatsResources(nc, nc.jetstream({ timeout: 5_000 }), jsm, layout);
    } catch (err) {
      await nc.close();
      throw new Error(`JetStream is not available at ${url}: ${(err as Error).message} (start nats-server with -js)`);
    }
  }

  /** Largest message the server takes, less room for our headers. */
  get maxMessageBytes(): number {
    return this.nc.info!.max_payload - 8 * 1024;
  }

  /** Flushes pending acks and publishes, then closes. */
  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    await this.nc.drain();
  }
}
