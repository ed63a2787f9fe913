import fc from 'fast-check';
import { DomainError } from '../errors';
import { nativeId, otelSpanUuid, otelTraceUuid } from '../ids';
import { isStorableText } from '../json/sanitize';
import { MAX_SCORES_PER_REQUEST } from '../limits';
import { scoreIdOf, scoreRequestToFacts, scoreTargetOf, validateScoreRequest } from './score-request';

const target = { projectId: '00000000-0000-4000-8000-000000000001', receivedAt: '2026-11-24T10:00:00.000Z' };

describe(validateScoreRequest.name, () => {
  it('takes one score or a list of them', () => {
    expect(validateScoreRequest({ traceId: 't1', name: 'quality', value: 0.9 })).toHaveLength(1);
    expect(
      validateScoreRequest({
        scores: [
          { traceId: 't1', name: 'a', value: true },
          { traceId: 't1', name: 'b', value: 'good' },
        ],
      }),
    ).toHaveLength(2);
    expect(validateScoreRequest({ scores: [] })).toEqual([]);
  });

  it.each([
    [[], 'body must be a score object'],
    [{ scores: 'x' }, 'scores: must be an array'],
    [{ traceId: 't1', value: 1 }, 'body.name'],
    [
      {
        scores: [
          { traceId: 't1', name: 'a', value: 1 },
          { traceId: 't1', name: 'a', value: null },
        ],
      },
      'scores[1].value',
    ],
    [{ scores: [{ traceId: 't1', name: 'a', value: 1, dataType: 'BOOLEAN' }] }, 'scores[0].dataType'],
  ])('refuses %j naming %s', (body, field) => {
    expect(() => validateScoreRequest(body)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringContaining(field) }),
    );
  });

  it('refuses more than MAX_SCORES_PER_REQUEST as too large', () => {
    const scores = Array.from({ length: MAX_SCORES_PER_REQUEST + 1 }, () => ({ traceId: 't1', name: 'a', value: 1 }));
    expect(() => validateScoreRequest({ scores })).toThrow(expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }));
  });

  it('gives every text as it is stored: NUL removed, unpaired surrogates replaced', () => {
    const [score] = validateScoreRequest({
      traceId: 't\u00001',
      name: 'accu\u0000racy',
      value: 'ok\ud800',
      metadata: { 'k\u0000': 'v\udc00' },
    });
    expect(score).toMatchObject({ traceId: 't1', name: 'accuracy', value: 'ok\ufffd', metadata: { k: 'v\ufffd' } });
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        (name, comment) => {
          for (const text of Object.values(validateScoreRequest({ traceId: 't', name, value: 1, comment })[0])) {
            if (typeof text === 'string') expect(isStorableText(text)).toBe(true);
          }
        },
      ),
    );
  });

  it('answers anything with scores or a DomainError, never another error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ scores: fc.array(fc.jsonValue()) })), (body) => {
        try {
          validateScoreRequest(body);
        } catch (err) {
          expect(err).toBeInstanceOf(DomainError);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

describe(scoreIdOf.name, () => {
  it("keeps the client's id as any native id, and derives one from the content otherwise", () => {
    expect(scoreIdOf({ id: 'score-1', traceId: 't', name: 'a', value: 1 })).toEqual(nativeId('score-1'));
    const derived = scoreIdOf({ traceId: 't', name: 'a', value: 1 });
    expect(derived.externalId).toBeNull();
    expect(scoreIdOf({ traceId: 't', name: 'a', value: 1 })).toEqual(derived);
    expect(scoreIdOf({ traceId: 't', name: 'a', value: 2 }).id).not.toBe(derived.id);
  });
});

describe(scoreTargetOf.name, () => {
  it('reads OTel hex ids as OTel ids and anything else as native ids or UUIDs', () => {
    const trace = '5b8efff798038103d269b633813fc60c';
    const span = 'eee19b7ec3c1b174';
    expect(scoreTargetOf({ traceId: trace, spanId: span })).toEqual({ traceId: otelTraceUuid(trace), spanId: otelSpanUuid(trace, span) });
    expect(scoreTargetOf({ traceId: 'trace-1', spanId: span })).toEqual({ traceId: nativeId('trace-1').id, spanId: nativeId(span).id });
    const uuid = otelTraceUuid(trace);
    expect(scoreTargetOf({ traceId: uuid, spanId: undefined })).toEqual({ traceId: uuid, spanId: undefined });
  });
});

describe(scoreRequestToFacts.name, () => {
  it('states each score once, stamped with the time it was received, with its data type inferred', () => {
    const facts = scoreRequestToFacts(
      validateScoreRequest({
        scores: [
          { traceId: 't1', name: 'ok', value: true },
          { id: 's2', traceId: 't1', name: 'q', value: 0.5, comment: 'fine' },
        ],
      }),
      target,
    );
    expect(facts.traces).toEqual([]);
    expect(facts.scores.map((s) => s.values)).toEqual([
      { traceId: nativeId('t1').id, name: 'ok', value: true, dataType: 'BOOLEAN', source: 'API', timestamp: target.receivedAt },
      {
        traceId: nativeId('t1').id,
        name: 'q',
        value: 0.5,
        dataType: 'NUMERIC',
        comment: 'fine',
        source: 'API',
        timestamp: target.receivedAt,
      },
    ]);
    expect(facts.scores[1]).toMatchObject({
      id: nativeId('s2').id,
      externalId: 's2',
      projectId: target.projectId,
      createdAt: target.receivedAt,
    });
  });
});
