import { NatsResources } from './nats-resources';
import type { JsMsg } from 'nats';
import { ensureDurableConsumer } from './dead-letter';
import { consumerUnacknowledged, firstSeqStoredSince, replayStream, streamLastSeq } from './replay';
import { closeTestStreams, openTestStreams, testStreamPrefix } from './testing/test-streams';

describe(replayStream.name, () => {
  let nats: NatsResources;

  beforeEach(async () => {
    nats = await openTestStreams('replay-test', testStreamPrefix('R'));
  });

  afterEach(() => closeTestStreams(nats));

  const append = async (n: number) => {
    for (let i = 1; i <= n; i++)
      await nats.js.publish(nats.layout.ingestSubject('org', 'project', 'batch'), new TextEncoder().encode(String(i)));
  };
  const replay = async (fromSeq: number, toSeq: number, batchSize = 10) => {
    const batches: number[][] = [];
    const last = await replayStream(nats, 'ingest', { fromSeq, toSeq, batchSize }, async (msgs) => {
      batches.push(msgs.map((m) => m.seq));
    });
    return { last, batches };
  };

  it('hands over a range in order, in batches, and says how far it read', async () => {
    await append(25);
    expect(await streamLastSeq(nats, 'ingest')).toBe(25);
    const all = await replay(1, 25);
    expect(all.last).toBe(25);
    expect(all.batches.map((b) => b.length)).toEqual([10, 10, 5]);
    expect(all.batches.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect((await replay(5, 12)).batches.flat()).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('skips purged sequences and ends even when the last one of the range is gone', async () => {
    await append(12);
    for (const seq of [3, 11, 12]) await nats.jsm.streams.deleteMessage(nats.layout.streamName('ingest'), seq);
    const { last, batches } = await replay(1, 12, 4);
    expect(batches.flat()).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10]);
    expect(last).toBe(10);
  });

  it('reads nothing from an empty stream or an empty range', async () => {
    expect(await replay(1, 0)).toEqual({ last: 0, batches: [] });
    await append(3);
    expect(await replay(4, 3)).toEqual({ last: 3, batches: [] });
  });

  it('finds the first message stored at or after an instant, on a subject or any, and null when there is none', async () => {
    const subject = (project: string) => nats.layout.ingestSubject('org', project, 'batch');
    await nats.js.publish(subject('a'), new Uint8Array());
    await nats.js.publish(subject('b'), new Uint8Array());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const since = new Date();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await nats.js.publish(subject('b'), new Uint8Array());
    await nats.js.publish(subject('a'), new Uint8Array());
    expect(await firstSeqStoredSince(nats, 'ingest', new Date(0))).toBe(1);
    expect(await firstSeqStoredSince(nats, 'ingest', since)).toBe(3);
    expect(await firstSeqStoredSince(nats, 'ingest', since, subject('a'))).toBe(4);
    expect(await firstSeqStoredSince(nats, 'ingest', new Date(0), subject('b'))).toBe(2);
    expect(await firstSeqStoredSince(nats, 'ingest', new Date(Date.now() + 60_000))).toBeNull();
    expect(await firstSeqStoredSince(nats, 'ingest', since, subject('c'))).toBeNull();
  });

  it('counts what a durable consumer has not acknowledged: every stored message before it exists, then the undelivered and the delivered unacknowledged', async () => {
    await append(5);
    const unacknowledged = () => consumerUnacknowledged(nats, 'ingest', 'projector');
    expect(await unacknowledged()).toBe(5);

    const stream = nats.layout.streamName('ingest');
    await ensureDurableConsumer(nats.jsm, stream, nats.layout.consumerName('projector'), 30_000);
    const delivered: JsMsg[] = [];
    for await (const msg of await (
      await nats.js.consumers.get(stream, nats.layout.consumerName('projector'))
    ).fetch({ max_messages: 3, expires: 1_000 })) {
      delivered.push(msg);
      if (delivered.length === 3) break;
    }
    expect(await unacknowledged()).toBe(5);
    await delivered[0].ackAck();
    await delivered[2].ackAck();
    expect(await unacknowledged()).toBe(3);
  });
});
