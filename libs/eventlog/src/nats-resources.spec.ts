import type { NatsConnection } from 'nats';
import { connectNats } from './nats-client';
import { NatsResources } from './nats-resources';

jest.mock('./nats-client');
jest.mock('./streams', () => ({ ...jest.requireActual('./streams'), ensureStreams: jest.fn() }));

type StatusEvent = { type: string };

/** The parts of a connection `open` touches; `info` is what the server announced, absent while reconnecting. */
function fakeConnection(maxPayload: number, statuses: AsyncIterable<StatusEvent> = (async function* () {})()) {
  return {
    info: { max_payload: maxPayload } as { max_payload: number } | undefined,
    jetstreamManager: async () => ({}),
    jetstream: () => ({}),
    isClosed: () => false,
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
    const nats = await NatsResources.open('nats://127.0.0.1:4222', 'test', 'T_');
    const limit = nats.maxMessageBytes;
    nc.info = undefined;
    expect(nats.maxMessageBytes).toBe(limit);
    expect(limit).toBe(1024 * 1024 - 8 * 1024);
  });

  it('is unreachable from a disconnect until the client has reconnected', async () => {
    const feed = statusFeed();
    jest.mocked(connectNats).mockResolvedValue(fakeConnection(1024 * 1024, feed) as unknown as NatsConnection);
    const nats = await NatsResources.open('nats://127.0.0.1:4222', 'test', 'T_');
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
