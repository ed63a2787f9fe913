import fc from 'fast-check';
import { parseAuditEvent } from './audit';
import { parseEvalJobMessage } from './eval-job';
import { parseUsageCounted } from './usage';
import { type IngestEnvelope, envelopeFromHeaders, envelopeToHeaders } from './ingest';
import { SeqTokenCodec } from './seq-token';

const envelope: IngestEnvelope = {
  schema: 'ingest.batch/v1',
  orgId: 'o',
  projectId: 'p',
  apiKeyId: 'k',
  receivedAt: '2024-01-01T00:00:00.000Z',
  requestId: 'r',
  chunkIndex: 1,
  chunkCount: 3,
};

describe('ingest envelope', () => {
  it('round-trips through headers', () => {
    const headers = envelopeToHeaders(envelope);
    expect(envelopeFromHeaders((n) => headers[n])).toEqual(envelope);
  });

  it('names the header at fault', () => {
    const headers: Record<string, string> = { ...envelopeToHeaders(envelope), 'Spanlog-Schema': 'ingest.batch/v9' };
    expect(() => envelopeFromHeaders((n) => headers[n])).toThrow(/ingest.batch\/v9/);
    const missing: Record<string, string> = envelopeToHeaders(envelope);
    delete missing['Spanlog-Project'];
    expect(() => envelopeFromHeaders((n) => missing[n])).toThrow(/Spanlog-Project/);
  });
});

describe(SeqTokenCodec.name, () => {
  const codec = new SeqTokenCodec('a deployment secret');

  it('round-trips every sequence exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (seq) => {
        expect(codec.decode(codec.encode({ stream: 'ingest', seq }))).toEqual({ stream: 'ingest', seq });
      }),
    );
  });

  it('shows nothing of the sequence, and gives one write one token', () => {
    const a = codec.encode({ stream: 'ingest', seq: 1042 });
    expect(codec.encode({ stream: 'ingest', seq: 1042 })).toBe(a);
    expect(a).not.toContain('1042');
    const next = codec.encode({ stream: 'ingest', seq: 1043 });
    expect(next).toHaveLength(a.length);
    // Neighbouring positions share no prefix a client could sort by.
    expect(next.slice(0, 6)).not.toBe(a.slice(0, 6));
  });

  it('opens no token it did not seal: another secret, a tampered byte, the clear form, junk', () => {
    const token = codec.encode({ stream: 'ingest', seq: 7 });
    expect(new SeqTokenCodec('another secret').decode(token)).toBeNull();
    // A character in the middle: the last one carries padding bits that decode to nothing.
    const at = 10;
    expect(codec.decode(token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1))).toBeNull();
    for (const junk of ['ingest.7', '', 'v1.', 'v1.' + 'A'.repeat(22), 'v1.' + 'A'.repeat(23), '\u0000', 'v1.%%%'])
      expect(codec.decode(junk)).toBeNull();
    fc.assert(fc.property(fc.string(), (text) => expect(codec.decode(text)).toBeNull()));
  });
});

describe(parseAuditEvent.name, () => {
  const event = {
    id: 'e',
    orgId: 'o',
    actorUserId: null,
    action: 'prompt_template.created',
    target: 'greeting',
    details: {},
    ip: null,
    at: '2026-01-01T00:00:00.000Z',
  };

  it('reads the API key that acted, and events written before keys could act', () => {
    expect(parseAuditEvent({ ...event, actorApiKeyId: 'k' })).toMatchObject({ actorApiKeyId: 'k', action: 'prompt_template.created' });
    expect(parseAuditEvent({ ...event, action: 'user.login' }).actorApiKeyId).toBeUndefined();
  });

  it('refuses an actor key that is not a string or null', () => {
    expect(() => parseAuditEvent({ ...event, actorApiKeyId: 7 })).toThrow('not an audit.event/v1 message');
  });
});

describe('stream message readers', () => {
  const id = '0af76519-16cd-43dd-8448-eb211c80319c';

  it('read a usage count, and refuse one naming the field at fault', () => {
    const counted = { id, orgId: id, metric: 'spans', n: 3, month: '2026-11', source: 'live', extra: 1 };
    expect(parseUsageCounted(counted)).toEqual({ id, orgId: id, metric: 'spans', n: 3, month: '2026-11', source: 'live' });
    expect(() => parseUsageCounted({ ...counted, n: 0 })).toThrow('not a usage.counted/v1 message: n: must be a positive integer');
    expect(() => parseUsageCounted(null)).toThrow('not a usage.counted/v1 message: id: must be a UUID');
  });

  it('read an evaluation job, and refuse another schema', () => {
    const job = { schema: 'eval.job/v1', jobId: id, orgId: id, projectId: id, evaluatorId: id };
    expect(parseEvalJobMessage(job)).toEqual(job);
    expect(() => parseEvalJobMessage({ ...job, schema: 'eval.job/v2' })).toThrow(
      'not an eval.job/v1 message: schema: must be one of eval.job/v1',
    );
  });
});
