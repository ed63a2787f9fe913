import fc from 'fast-check';
import { DomainError, type JsonValue } from '@app/domain';
import type { AnyValue, ExportTraceServiceRequest, KeyValue, Span } from './otlp-types';
import { otlpToFacts } from './otlp-to-facts';
import { ENVELOPE } from './testing/otlp-builders';
import { MAX_UNIX_NANO } from './otlp-wire';
import { validateOtlpRequest } from './validate-otlp-request';

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: length, maxLength: length }).filter((s) => !/^0+$/.test(s));
/** Few distinct ids, so that generated exports repeat traces (and sometimes spans). */
const traceHex = fc.oneof(hex(32), fc.constantFrom('5b8efff798038103d269b633813fc60c', 'DF41E597D0A85E0D7A6AE8EBFAA70AA0'));
const spanHex = fc.oneof(hex(16), fc.constantFrom('eee19b7ec3c1b174', '1DC6768109615657'));
/** Any UTF-16, lone surrogates and NUL included: the converter must make it safe. */
const text = fc.string({ unit: 'binary', maxLength: 12 });
const nanos = fc.oneof(fc.bigInt({ min: 0n, max: BigInt(MAX_UNIX_NANO) }).map(String), fc.nat(), fc.constant(1_736_935_200_123_456_000));
const KEYS = [
  'platform.span.type',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.cost',
  'gen_ai.prompt',
  'gen_ai.completion',
  'gen_ai.request.temperature',
  'llm.system',
  'tool.name',
  'rpc.method',
  'db.system',
  'db.statement',
  'user.id',
  'session.id',
  'gen_ai.conversation.id',
  'deployment.environment.name',
  'deployment.environment',
  'service.name',
  '__proto__',
  'constructor',
];
const key = fc.oneof(fc.constantFrom(...KEYS), text);

const { anyValue } = fc.letrec<{ anyValue: AnyValue; keyValue: KeyValue }>((tie) => ({
  anyValue: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.record({ stringValue: text }),
    fc.record({ intValue: fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)) }),
    fc.record({
      doubleValue: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom('NaN', 'Infinity', '-Infinity', '1.5')),
    }),
    fc.record({ boolValue: fc.boolean() }),
    fc.record({ bytesValue: fc.base64String() }),
    fc.constant({}),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('anyValue'), { maxLength: 3 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(tie('keyValue'), { maxLength: 3 }) }) }),
  ),
  keyValue: fc.record({ key, value: tie('anyValue') }),
}));
const attributes = fc.array(fc.record({ key, value: anyValue }), { maxLength: 6 });

const span: fc.Arbitrary<Span> = fc.record(
  {
    traceId: traceHex,
    spanId: spanHex,
    parentSpanId: fc.oneof(fc.constantFrom('', '0000000000000000'), spanHex),
    name: text,
    kind: fc.integer({ min: -1, max: 7 }),
    startTimeUnixNano: nanos,
    endTimeUnixNano: nanos,
    attributes,
    status: fc.record({ code: fc.integer({ min: 0, max: 3 }), message: text }, { requiredKeys: [] }),
    traceState: text,
    events: fc.array(fc.record({ name: text, timeUnixNano: nanos, attributes }, { requiredKeys: [] }), { maxLength: 2 }),
    links: fc.array(fc.record({ traceId: traceHex, spanId: spanHex, attributes }, { requiredKeys: ['traceId', 'spanId'] }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: ['traceId', 'spanId'] },
);

const otlpExport: fc.Arbitrary<ExportTraceServiceRequest> = fc.record(
  {
    resourceSpans: fc.array(
      fc.record(
        {
          resource: fc.record({ attributes }, { requiredKeys: [] }),
          scopeSpans: fc.array(
            fc.record(
              {
                scope: fc.record({ name: text, version: text, attributes }, { requiredKeys: [] }),
                spans: fc.array(span, { maxLength: 5 }),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 3 },
          ),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
);

const spansOf = (body: ExportTraceServiceRequest): Span[] =>
  (body.resourceSpans ?? []).flatMap((r) => (r.scopeSpans ?? []).flatMap((s) => s.spans ?? []));

/** Every string and key in a JSON value, iteratively. */
function* stringsIn(value: unknown): Generator<string> {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') yield v;
    else if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        yield k;
        stack.push(x);
      }
    }
  }
}

/** A valid export with one value somewhere (an object member or array item) replaced by any JSON. */
const mutatedExport = fc.tuple(otlpExport, fc.nat(), fc.jsonValue({ maxDepth: 3 })).map(([body, pick, replacement]) => {
  const copy = JSON.parse(JSON.stringify(body)) as JsonValue;
  const slots: [Record<string, JsonValue> | JsonValue[], string | number][] = [];
  const stack: JsonValue[] = [copy];
  while (stack.length > 0) {
    const v = stack.pop() as JsonValue;
    if (Array.isArray(v)) v.forEach((x, i) => (slots.push([v, i]), stack.push(x)));
    else if (v !== null && typeof v === 'object') Object.entries(v).forEach(([k, x]) => (slots.push([v, k]), stack.push(x)));
  }
  if (slots.length === 0) return replacement as JsonValue;
  const [parent, slot] = slots[pick % slots.length];
  (parent as Record<string | number, JsonValue>)[slot] = replacement as JsonValue;
  return copy;
});

describe('OTLP properties', () => {
  it('the validator accepts every generated export and counts its spans', () => {
    fc.assert(fc.property(otlpExport, (body) => expect(validateOtlpRequest(body)).toEqual({ spanCount: spansOf(body).length })));
  });

  it('the converter never throws, yields one delta per span, and is deterministic', () => {
    fc.assert(
      fc.property(otlpExport, (body) => {
        const facts = otlpToFacts(body, ENVELOPE);
        const spans = spansOf(body);
        expect(facts.spans).toHaveLength(spans.length);
        expect(facts.traces).toHaveLength(spans.length);
        expect(otlpToFacts(JSON.parse(JSON.stringify(body)), ENVELOPE)).toEqual(facts);
        const pairs = new Set(spans.map((s) => `${s.traceId.toLowerCase()}:${s.spanId.toLowerCase()}`));
        expect(new Set(facts.spans.map((s) => s.id)).size).toBe(pairs.size);
        expect(new Set(facts.traces.map((t) => t.id)).size).toBe(new Set(spans.map((s) => s.traceId.toLowerCase())).size);
      }),
    );
  });

  it('the same (trace, span) always maps to the same span id, whatever the case of its hex', () => {
    fc.assert(
      fc.property(traceHex, spanHex, (t, s) => {
        const idOf = (traceId: string, spanId: string) =>
          otlpToFacts({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId }] }] }] }, ENVELOPE).spans[0].id;
        expect(idOf(t.toUpperCase(), s.toLowerCase())).toBe(idOf(t.toLowerCase(), s.toUpperCase()));
      }),
    );
  });

  it('every string the converter yields is safe for Postgres, and the facts are plain JSON', () => {
    fc.assert(
      fc.property(otlpExport, (body) => {
        const facts = otlpToFacts(body, ENVELOPE);
        for (const s of stringsIn(facts)) {
          expect(s.includes('\u0000')).toBe(false);
          expect(s.isWellFormed()).toBe(true);
        }
        expect(JSON.parse(JSON.stringify(facts))).toEqual(facts);
      }),
      { numRuns: 50 },
    );
  });

  it('the validator throws nothing but DomainError for any JSON', () => {
    const onlyDomainErrors = (body: unknown) => {
      try {
        validateOtlpRequest(body);
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        expect((err as DomainError).code).toBe('VALIDATION_ERROR');
      }
    };
    fc.assert(fc.property(fc.jsonValue(), onlyDomainErrors));
    fc.assert(fc.property(mutatedExport, onlyDomainErrors), { numRuns: 500 });
  });

  it('whatever the validator accepts, the converter turns into one span delta per span', () => {
    fc.assert(
      fc.property(mutatedExport, (body) => {
        let spanCount: number;
        try {
          ({ spanCount } = validateOtlpRequest(body));
        } catch {
          return;
        }
        expect(otlpToFacts(body as ExportTraceServiceRequest, ENVELOPE).spans).toHaveLength(spanCount);
      }),
      { numRuns: 500 },
    );
  });
});
