import fc from 'fast-check';
import { v5 as uuidPackageV5 } from 'uuid';
import { SPANLOG_NAMESPACE, isOtelSpanId, isOtelTraceId, nativeId, otelSpanUuid, otelTraceUuid, traceIdCandidates, uuidV5 } from './ids';

describe('ids', () => {
  it('writes an OTel trace id as a UUID, lower-case', () => {
    expect(otelTraceUuid('5B8EFFF798038103D269B633813FC60C')).toBe('5b8efff7-9803-8103-d269-b633813fc60c');
  });

  it('derives span UUIDs from trace and span, deterministically and case-insensitively', () => {
    const a = otelSpanUuid('5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b174');
    expect(otelSpanUuid('5B8EFFF798038103D269B633813FC60C', 'EEE19B7EC3C1B174')).toBe(a);
    expect(otelSpanUuid('5b8efff798038103d269b633813fc60d', 'eee19b7ec3c1b174')).not.toBe(a);
  });

  it.each([
    ['5b8efff798038103d269b633813fc60c', true],
    ['00000000000000000000000000000000', false],
    ['5b8efff798038103d269b633813fc60', false],
    ['zz8efff798038103d269b633813fc60c', false],
  ])('isOtelTraceId(%s) = %s', (id, ok) => expect(isOtelTraceId(id)).toBe(ok));

  it.each([
    ['eee19b7ec3c1b174', true],
    ['0000000000000000', false],
    ['eee19b7ec3c1b17', false],
  ])('isOtelSpanId(%s) = %s', (id, ok) => expect(isOtelSpanId(id)).toBe(ok));

  it('keeps a native UUID and maps any other id to UUIDv5 with the original kept', () => {
    expect(nativeId('0E9B3C42-8F11-4C55-9E2A-6F3B1D2C4A5E')).toEqual({ id: '0e9b3c42-8f11-4c55-9e2a-6f3b1d2c4a5e', externalId: null });
    const mapped = nativeId('trace-1');
    expect(mapped.externalId).toBe('trace-1');
    expect(mapped.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(nativeId('trace-1')).toEqual(mapped);
  });

  it('accepts a trace id in any of its forms', () => {
    const hex = '5b8efff798038103d269b633813fc60c';
    expect(traceIdCandidates(hex)).toContain(otelTraceUuid(hex));
    expect(traceIdCandidates('trace-1')).toEqual([nativeId('trace-1').id]);
  });

  it('takes a UUID-shaped id with no RFC 4122 version or variant as the UUID it is', () => {
    // Version nibble 8 and variant nibble d: the id the API returns for this OTel trace.
    const id = otelTraceUuid('5b8efff798038103d269b633813fc60c');
    expect(nativeId(id)).toEqual({ id, externalId: null });
    expect(nativeId(id.toUpperCase())).toEqual({ id, externalId: null });
    // Rows ingested before kept such ids as UUIDv5 of the string, and are still found.
    expect(traceIdCandidates(id)).toEqual([id, uuidV5(id, SPANLOG_NAMESPACE)]);
  });

  it('finds every OTel trace by the id the API returns for it, and by its hex id', () => {
    const traceHex = fc.stringMatching(/^[0-9a-f]{32}$/).filter(isOtelTraceId);
    fc.assert(
      fc.property(traceHex, (hex) => {
        const returned = otelTraceUuid(hex);
        expect(traceIdCandidates(returned)[0]).toBe(returned);
        expect(traceIdCandidates(returned.toUpperCase())[0]).toBe(returned);
        expect(traceIdCandidates(hex)).toContain(returned);
        expect(traceIdCandidates(hex.toUpperCase())).toContain(returned);
      }),
      { numRuns: 2_000 },
    );
  });

  describe(uuidV5.name, () => {
    it('gives the ids the uuid package gives, for any name and namespace', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.oneof(fc.constant(SPANLOG_NAMESPACE), fc.uuid()), (name, namespace) => {
          expect(uuidV5(name, namespace)).toBe(uuidPackageV5(name, namespace));
        }),
        { numRuns: 2_000 },
      );
    });

    it('matches the RFC 4122 example for the DNS namespace', () => {
      expect(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    });
  });
});
