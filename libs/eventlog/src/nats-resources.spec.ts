import type { NatsConnection } from 'nats';
import { connectNats } from './nats-client';
import { NatsResources } from './nats-resources';

jest.mock('./nats-client');
jest.mock('./streams', () => ({ ...jest.requireActual('./streams'), ensureStreams: jest.fn() }));

/** The parts of a connection `open` touches; `info` is what the server announced, absent while reconnecting. */
function fakeConnection(maxPayload: number): { info?: { max_payload: number } } {
  return { info: { max_payload: maxPayload }, jetstreamManager: async () => ({}), jetstream: () => ({}) } as never;
}

describe(NatsResources.name, () => {
  it('keeps the message size limit while the connection is reconnecting, when the client has no server info', async () => {
    const nc = fakeConnection(1024 * 1024);
    jest.mocked(connectNats).mockResolvedValue(nc as unknown as NatsConnection);
    const nats = await NatsResources.open('nats://127.0.0.1:4222', 'test', 'T_');
    const limit = nats.maxMessageBytes;
    delete nc.info;
    expect(nats.maxMessageBytes).toBe(limit);
    expect(limit).toBe(1024 * 1024 - 8 * 1024);
  });
});
