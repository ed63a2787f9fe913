import fc from 'fast-check';
import { v5 as uuidPackageV5 } from 'uuid';
import {
  SPANLOG_NAMESPACE,
  isOtelSpanId,
  isOtelTraceId,
  legacyTraceIds,
  nativeId,
  otelSpanUuid,
  otelTraceUuid,
  spanIdOf,
  traceIdCandidates,
  traceIdOf,
  uuidV5,
} from './ids';

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

  it('accepts a trace id in any of its forms, the trace it names first', () => {
    const hex = '5b8efff798038103d269b633813fc60c';
    expect(traceIdCandidates(hex)[0]).toBe(otelTraceUuid(hex));
    expect(traceIdCandidates('trace-1')).toEqual([nativeId('trace-1').id]);
  });

  /** Any spelling of a hex string: each letter in either case. */
  const anyCase = (hexLength: number, valid: (hex: string) => boolean) =>
    fc
      .tuple(
        fc.stringMatching(new RegExp(`^[0-9a-f]{${hexLength}}$`)).filter(valid),
        fc.array(fc.boolean(), { minLength: hexLength, maxLength: hexLength }),
      )
      .map(([hex, upper]) => [...hex].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
  const traceHexAnyCase = anyCase(32, isOtelTraceId);
  const spanHexAnyCase = anyCase(16, isOtelSpanId);
  /** Ids that are no OTel trace id: native strings, UUIDs, hex of other lengths, the all-zero id. */
  const notOtelTrace = fc
    .oneof(fc.string({ minLength: 1, maxLength: 256 }), fc.uuid(), fc.stringMatching(/^[0-9a-fA-F]{1,40}$/), fc.constant('0'.repeat(32)))
    .filter((id) => !isOtelTraceId(id));

  describe(traceIdOf.name, () => {
    it('names the OTel trace by its 32-hex id in any case: its UUID, the hex in lower case, no external id', () => {
      fc.assert(
        fc.property(traceHexAnyCase, (hex) => {
          expect(traceIdOf(hex)).toEqual({ id: otelTraceUuid(hex), otelTraceId: hex.toLowerCase(), externalId: null });
          expect(traceIdOf(hex.toUpperCase())).toEqual(traceIdOf(hex.toLowerCase()));
          // The UUID the API answers with names the same trace.
          expect(traceIdOf(traceIdOf(hex).id).id).toBe(traceIdOf(hex).id);
        }),
        { numRuns: 2_000 },
      );
    });

    it('maps any other id as a native id', () => {
      fc.assert(
        fc.property(notOtelTrace, (id) => {
          expect(traceIdOf(id)).toEqual({ ...nativeId(id), otelTraceId: null });
        }),
        { numRuns: 2_000 },
      );
    });
  });

  describe(spanIdOf.name, () => {
    it('names the OTel span by its 16-hex id under its 32-hex trace id, in any case: the UUID OTLP gives it', () => {
      fc.assert(
        fc.property(traceHexAnyCase, spanHexAnyCase, (trace, span) => {
          expect(spanIdOf(trace, span)).toEqual({
            id: otelSpanUuid(trace.toLowerCase(), span.toLowerCase()),
            otelSpanId: span.toLowerCase(),
            externalId: null,
          });
          expect(spanIdOf(trace.toUpperCase(), span.toUpperCase())).toEqual(spanIdOf(trace.toLowerCase(), span.toLowerCase()));
        }),
        { numRuns: 2_000 },
      );
    });

    it('maps a span id as a native id beside any other trace id, or when it is no 16-hex id', () => {
      fc.assert(
        fc.property(notOtelTrace, spanHexAnyCase, (trace, span) =>
          expect(spanIdOf(trace, span)).toEqual({ ...nativeId(span), otelSpanId: null }),
        ),
        { numRuns: 1_000 },
      );
      fc.assert(
        fc.property(
          traceHexAnyCase,
          fc.string({ minLength: 1, maxLength: 256 }).filter((id) => !isOtelSpanId(id)),
          (trace, span) => expect(spanIdOf(trace, span)).toEqual({ ...nativeId(span), otelSpanId: null }),
        ),
        { numRuns: 1_000 },
      );
    });
  });

  describe(traceIdCandidates.name, () => {
    it('puts the trace an id names first, for any id', () => {
      fc.assert(
        fc.property(fc.oneof(traceHexAnyCase, notOtelTrace), (id) => expect(traceIdCandidates(id)[0]).toBe(traceIdOf(id).id)),
        { numRuns: 2_000 },
      );
    });

    it('still finds rows a 32-hex id was stored under as a native id: UUIDv5 of it as sent, in lower and in upper case', () => {
      fc.assert(
        fc.property(traceHexAnyCase, (hex) => {
          const candidates = traceIdCandidates(hex);
          for (const spelling of [hex, hex.toLowerCase(), hex.toUpperCase()])
            expect(candidates).toContain(uuidV5(spelling, SPANLOG_NAMESPACE));
          expect(candidates).toEqual([otelTraceUuid(hex), ...legacyTraceIds(hex)]);
        }),
        { numRuns: 1_000 },
      );
      expect(legacyTraceIds('trace-1')).toEqual([]);
      expect(legacyTraceIds('0'.repeat(32))).toEqual([]);
    });
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
    it('gives the ids the uuid package gives, for any name and namespace, short or longer than its reused buffer holds', () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ unit: 'grapheme', minLength: 300, maxLength: 1_200 })),
          fc.oneof(fc.constant(SPANLOG_NAMESPACE), fc.uuid()),
          (name, namespace) => {
            expect(uuidV5(name, namespace)).toBe(uuidPackageV5(name, namespace));
          },
        ),
        { numRuns: 2_000 },
      );
    });

    it('matches the RFC 4122 example for the DNS namespace', () => {
      expect(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    });
  });
});
