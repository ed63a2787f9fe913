import type { NatsConnection } from 'nats';
import { connectNats } from './nats-client';
import { NatsResources } from './nats-resources';
import { ensureStreams } from './streams';

jest.mock('./nats-client');
jest.mock('./streams', () => ({ ...jest.requireActual('./streams'), ensureStreams: jest.fn(async () => []) }));

type StatusEvent = { type: string };
const SETTINGS = { natsServers: ['nats://127.0.0.1:4222'], streamPrefix: 'T_', streamReplicas: 1 };

/** The parts of a connection `open` touches; `info` is what the server announced, absent while reconnecting. */
function fakeConnection(maxPayload: number, statuses: AsyncIterable<StatusEvent> = (async function* () {})()) {
  return {
    info: { max_payload: maxPayload } as { max_payload: number } | undefined,
    jetstreamManager: async () => ({}),
    jetstream: () => ({}),
    isClosed: () => false,
    close: async () => undefined,
    status: () => statuses,
  };
}

/** Status events pushed by the test, one at a time. */
function statusFeed() {
  const queue: StatusEvent[] = [];
  let wake: (() => void) | null = null;
  return {
    push(type: string) {
      queue.push({ type });
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift() as StatusEvent;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe(NatsResources.name, () => {
  it('keeps the message size limit while the connection is reconnecting, when the client has no server info', async () => {
    const nc = fakeConnection(1024 * 1024);
    jest.mocked(connectNats).mockResolvedValue(nc as unknown as NatsConnection);
    const nats = await NatsResources.open(SETTINGS, 'test');
    const limit = nats.maxMessageBytes;
    nc.info = undefined;
    expect(nats.maxMessageBytes).toBe(limit);
    expect(limit).toBe(1024 * 1024 - 8 * 1024);
  });

  it('says that stream replicas need a cluster when a single server refuses them', async () => {
    jest.mocked(connectNats).mockResolvedValue(fakeConnection(1024 * 1024) as unknown as NatsConnection);
    jest.mocked(ensureStreams).mockRejectedValueOnce(new Error('replicas > 1 not supported in non-clustered mode'));
    await expect(NatsResources.open({ ...SETTINGS, streamReplicas: 3 }, 'test')).rejects.toThrow(
      'JetStream is not available at nats://127.0.0.1:4222: replicas > 1 not supported in non-clustered mode (SPANLOG_STREAM_REPLICAS=3 needs a JetStream cluster of at least 3 servers)',
    );
  });

  it('is unreachable from a disconnect until the client has reconnected', async () => {
    const feed = statusFeed();
    jest.mocked(connectNats).mockResolvedValue(fakeConnection(1024 * 1024, feed) as unknown as NatsConnection);
    const nats = await NatsResources.open(SETTINGS, 'test');
    expect(nats.reachable).toBe(true);
    feed.push('disconnect');
    await tick();
    expect(nats.reachable).toBe(false);
    feed.push('reconnecting');
    await tick();
    expect(nats.reachable).toBe(false);
    feed.push('reconnect');
    await tick();
    expect(nats.reachable).toBe(true);
  });
});
