import { type IngestEnvelope, envelopeFromHeaders, envelopeToHeaders } from './ingest';
import { decodeSeqToken, encodeSeqToken } from './seq-token';

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

describe('seq token', () => {
  it('round-trips and refuses anything else', () => {
    expect(decodeSeqToken(encodeSeqToken({ stream: 'ingest', seq: 42 }))).toEqual({ stream: 'ingest', seq: 42 });
    expect(decodeSeqToken('ingest.x')).toBeNull();
    expect(decodeSeqToken('other.1')).toBeNull();
  });
});
