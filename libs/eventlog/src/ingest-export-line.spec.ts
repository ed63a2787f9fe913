import fc from 'fast-check';
import { ENVELOPE_HEADERS, INGEST_SCHEMAS, type IngestEnvelope, envelopeToHeaders } from '@app/domain';
import { toNatsHeaders } from './headers';
import { ingestExportEntry } from './ingest-export-line';
import { PermanentMessageError } from './consumer';

const ROOT = 'P_ingest';
const ORG = '11111111-1111-4111-8111-111111111111';
const PROJECT = '22222222-2222-4222-8222-222222222222';
const RECEIVED_AT = '2026-11-22T10:00:00.000Z';
const STORED_AT = new Date('2026-11-22T10:00:01.000Z');

const envelope = (overrides: Partial<IngestEnvelope> = {}): IngestEnvelope => ({
  schema: INGEST_SCHEMAS.nativeBatch,
  orgId: ORG,
  projectId: PROJECT,
  apiKeyId: 'key-1',
  receivedAt: RECEIVED_AT,
  requestId: 'req-1',
  chunkIndex: 0,
  chunkCount: 1,
  ...overrides,
});

const message = (headers: Record<string, string> = envelopeToHeaders(envelope())) => ({
  seq: 7,
  subject: `${ROOT}.${ORG}.${PROJECT}.batch`,
  headers: toNatsHeaders(headers),
  storedAt: STORED_AT,
});

const bytes = (text: string) => new TextEncoder().encode(text);
const entryOf = (data: Uint8Array | Error, headers?: Record<string, string>) => ingestExportEntry(message(headers), ROOT, data);
const lineOf = (data: Uint8Array | Error, headers?: Record<string, string>) => JSON.parse(entryOf(data, headers).line);

describe(ingestExportEntry.name, () => {
  it('writes the envelope and the request in the documented order, the tenant from the subject', () => {
    const entry = entryOf(bytes('{"batch":[{"id":"e1"}]}'));
    expect(entry.line).toBe(
      `{"seq":7,"subject":"${ROOT}.${ORG}.${PROJECT}.batch","receivedAt":"${RECEIVED_AT}","schema":"ingest.batch/v1","orgId":"${ORG}","projectId":"${PROJECT}","data":{"batch":[{"id":"e1"}]}}`,
    );
    expect(entry).toMatchObject({ at: Date.parse(RECEIVED_AT), readable: true });
  });

  it('keeps every digit of a number beyond 2^53, which a parse and re-serialization would round', () => {
    const line = entryOf(bytes('{"startTimeUnixNano":1732269600123456789}')).line;
    expect(line).toContain('"data":{"startTimeUnixNano":1732269600123456789}');
  });

  it('puts a pretty-printed request on one line without changing its value', () => {
    const data = { batch: [{ id: 'e1', body: { text: 'two\nlines', crlf: 'a\r\nb' } }] };
    const entry = entryOf(bytes(JSON.stringify(data, null, 2).replace(/\n/g, '\r\n')));
    expect(entry.line).not.toMatch(/[\r\n]/);
    expect(JSON.parse(entry.line).data).toEqual(data);
  });

  it.each([
    ['data that is not JSON', bytes('{"batch": ['), /data is not JSON/],
    ['data that is not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), /data is not JSON/],
    ['data the object store no longer holds', new PermanentMessageError('blob abc is missing from P_INGEST_BLOBS'), /blob abc is missing/],
  ])('writes a line with null data and the error for %s', (_name, data, error) => {
    const entry = entryOf(data);
    expect(entry.readable).toBe(false);
    expect(JSON.parse(entry.line)).toEqual({
      seq: 7,
      subject: `${ROOT}.${ORG}.${PROJECT}.batch`,
      receivedAt: RECEIVED_AT,
      schema: 'ingest.batch/v1',
      orgId: ORG,
      projectId: PROJECT,
      data: null,
      error: expect.stringMatching(error),
    });
  });

  it('names an envelope fault and still gives the data; without a receivedAt the stored time bounds it', () => {
    const headers = envelopeToHeaders(envelope());
    delete headers[ENVELOPE_HEADERS.receivedAt];
    const entry = entryOf(bytes('{"a":1}'), headers);
    expect(entry.readable).toBe(false);
    expect(entry.at).toBe(STORED_AT.getTime());
    expect(JSON.parse(entry.line)).toMatchObject({
      receivedAt: null,
      data: { a: 1 },
      error: `envelope header ${ENVELOPE_HEADERS.receivedAt} is missing`,
    });
    expect(lineOf(bytes('{}'), {})).toMatchObject({
      schema: null,
      receivedAt: null,
      orgId: ORG,
      projectId: PROJECT,
      data: {},
      error: expect.stringMatching(/is missing/),
    });
  });

  it('writes one line of valid JSON whose data is the stored value, for any JSON value in any layout', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 1, 2, '\t', '\r\n  '), (value, indent) => {
        const text =
          typeof indent === 'string' && indent.startsWith('\r')
            ? JSON.stringify(value, null, 1).replace(/\n/g, indent)
            : JSON.stringify(value, null, indent);
        const entry = entryOf(bytes(text));
        expect(entry.line).not.toMatch(/[\r\n]/);
        expect(JSON.parse(entry.line).data).toEqual(JSON.parse(text));
      }),
    );
  });
});
