import { toNatsHeaders } from './headers';
import { DEAD_LETTER_HEADERS, deadLetterHeaders } from './dead-letter';
import { deadLetterOf } from './dead-letter-reader';

describe(deadLetterOf.name, () => {
  const storedAt = new Date('2026-11-22T10:00:00.000Z');

  it('reads back what the consumer wrote when it dead-lettered a message, beside the message headers', () => {
    const original = toNatsHeaders({ 'Spanlog-Schema': 'ingest.batch/v1', 'Spanlog-Blob': 'abc' });
    const headers = deadLetterHeaders(
      { headers: original, stream: 'P_INGEST', consumer: 'P_ingest-projector', seq: 42, subject: 'P_ingest.o.p.batch' },
      'blob abc is missing',
    );
    expect(headers).toMatchObject({ 'Spanlog-Schema': 'ingest.batch/v1', 'Spanlog-Blob': 'abc' });
    expect(deadLetterOf({ seq: 3, headers: toNatsHeaders(headers), storedAt })).toEqual({
      id: 3,
      reason: 'blob abc is missing',
      stream: 'P_INGEST',
      consumer: 'P_ingest-projector',
      seq: 42,
      subject: 'P_ingest.o.p.batch',
      time: '2026-11-22T10:00:00.000Z',
    });
  });

  it('gives null for what a message on the stream does not say', () => {
    expect(deadLetterOf({ seq: 1, headers: undefined, storedAt })).toEqual({
      id: 1,
      reason: null,
      stream: null,
      consumer: null,
      seq: null,
      subject: null,
      time: storedAt.toISOString(),
    });
    expect(deadLetterOf({ seq: 1, headers: toNatsHeaders({ [DEAD_LETTER_HEADERS.seq]: 'twelve' }), storedAt }).seq).toBeNull();
  });

  it('keeps a reason to 2,000 characters', () => {
    const headers = deadLetterHeaders({ headers: undefined, stream: 's', consumer: 'c', seq: 1, subject: 'x' }, 'r'.repeat(5_000));
    expect(headers[DEAD_LETTER_HEADERS.reason]).toHaveLength(2_000);
  });
});
