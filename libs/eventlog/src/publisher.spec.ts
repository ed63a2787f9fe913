import type { JetStreamClient, PubAck } from 'nats';
import { DomainError, INGEST_SCHEMAS } from '@app/domain';
import { publishDuration } from '@app/metrics';
import { ChunkPublisher } from './publisher';
import { StreamLayout } from './streams';

const envelope = {
  schema: INGEST_SCHEMAS.nativeBatch,
  orgId: 'org',
  projectId: 'project',
  apiKeyId: 'key',
  receivedAt: '2026-11-22T10:00:00.000Z',
  requestId: 'req',
};
const bytes = (s: string) => new TextEncoder().encode(s);

/** Records every publish; answers from `answer`. */
function recordingJetStream(answer: (seq: number) => Promise<PubAck>) {
  const published: { subject: string; msgID: string; chunk: string | null }[] = [];
  const js = {
    publish: (subject: string, _data: Uint8Array, opts: { msgID: string; headers: { get(k: string): string } }) => {
      published.push({ subject, msgID: opts.msgID, chunk: opts.headers.get('Spanlog-Chunk') });
      return answer(published.length);
    },
  } as unknown as JetStreamClient;
  return { js, published };
}

describe(ChunkPublisher.name, () => {
  it('resolves with the last sequence once every chunk is acknowledged', async () => {
    const { js, published } = recordingJetStream(async (seq) => ({ seq, duplicate: false, stream: 'INGEST', domain: '' }));
    const result = await new ChunkPublisher(js, new StreamLayout('T_'), 1024).publish('ingest.org.project.batch', envelope, [
      bytes('a'),
      bytes('b'),
    ]);
    expect(result).toEqual({ lastSeq: 2, duplicates: 0 });
    expect(published.map((p) => p.chunk)).toEqual(['0/2', '1/2']);
  });

  it('derives message ids from the content, so a retried request is deduplicated by the stream', async () => {
    const { js, published } = recordingJetStream(async (seq) => ({ seq, duplicate: false, stream: 'INGEST', domain: '' }));
    const publisher = new ChunkPublisher(js, new StreamLayout('T_'), 1024);
    await publisher.publish('s', envelope, [bytes('same')]);
    await publisher.publish('s', { ...envelope, requestId: 'retry', receivedAt: '2026-11-22T10:00:05.000Z' }, [bytes('same')]);
    await publisher.publish('s', envelope, [bytes('other')]);
    expect(published[0].msgID).toBe(published[1].msgID);
    expect(published[2].msgID).not.toBe(published[0].msgID);
  });

  it('turns a missing acknowledgement into 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const { js } = recordingJetStream((seq) =>
      seq === 2 ? Promise.reject(new Error('TIMEOUT')) : Promise.resolve({ seq, duplicate: false, stream: 'INGEST', domain: '' }),
    );
    const failure = await new ChunkPublisher(js, new StreamLayout('T_'), 1024)
      .publish('s', envelope, [bytes('a'), bytes('b')])
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(DomainError);
    expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' } });
  });

  it('answers 503 with Retry-After when the event log stays without a leader for the whole retry window', async () => {
    const noResponders = Object.assign(new Error('503'), { code: '503' });
    const { js, published } = recordingJetStream(() => Promise.reject(noResponders));
    const failure = await new ChunkPublisher(js, new StreamLayout('T_'), 1024, { windowMs: 1_000 })
      .publish('s', envelope, [bytes('a')])
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' }, cause: noResponders });
    expect(published.length).toBeGreaterThan(1);
    expect(new Set(published.map((p) => p.msgID)).size).toBe(1);
  });

  it('times every message from publish to acknowledgement, failures apart', async () => {
    const published = async (outcome: string) =>
      (await publishDuration.get()).values.find(
        (v) => v.metricName === 'spanlog_nats_publish_duration_seconds_count' && v.labels.outcome === outcome,
      )?.value ?? 0;
    const [acked, failed] = [await published('acked'), await published('failed')];
    const { js } = recordingJetStream((seq) =>
      seq === 3 ? Promise.reject(new Error('TIMEOUT')) : Promise.resolve({ seq, duplicate: false, stream: 'INGEST', domain: '' }),
    );
    await new ChunkPublisher(js, new StreamLayout('T_'), 1024)
      .publish('s', envelope, [bytes('a'), bytes('b'), bytes('c')])
      .catch(() => undefined);
    expect(await published('acked')).toBe(acked + 2);
    expect(await published('failed')).toBe(failed + 1);
  });
});
