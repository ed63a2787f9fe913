import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { foldFacts } from '@app/domain';
import { otlpToFacts } from './otlp-to-facts';
import { ENVELOPE } from './testing/otlp-builders';
import { validateOtlpRequest } from './validate-otlp-request';

/** The shared fixtures sit beside the repository (fixtures/README.md). */
const FIXTURES = resolve(__dirname, '../../../../shared/fixtures/otlp');
/** What the convention tables add to each shared fixture, here because the shared `.expected.json` files state SPEC §2 alone. */
const CONVENTIONS = resolve(__dirname, 'testing/shared-fixtures');
const read = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
const bodies = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json') && !name.endsWith('.expected.json'))
  .sort();

/** The conversion in the `.expected.json` form: traces in order of first mention, spans in body order. */
function expectedFormOf(body: unknown) {
  const facts = otlpToFacts(body as never, ENVELOPE);
  const traces = foldFacts([facts]).traces;
  return {
    traces: traces.map((trace) => ({
      otelTraceId: trace.otelTraceId,
      name: trace.values.name ?? null,
      tags: trace.values.tags ?? [],
      spans: facts.spans
        .filter((span) => span.values.traceId === trace.id)
        .map(({ otelSpanId, values: v }) => ({
          otelSpanId,
          name: v.name ?? null,
          type: v.type ?? null,
          model: v.model ?? null,
          promptTokens: v.promptTokens ?? null,
          completionTokens: v.completionTokens ?? null,
          cost: v.cost ?? null,
          input: v.input ?? null,
          output: v.output ?? null,
        })),
    })),
  };
}

interface ConventionsAdded {
  traces: Record<string, Record<string, unknown>>;
  spans: Record<string, Record<string, unknown>>;
}

/** The shared expectation with what the conventions add laid over it, per trace and span id. */
function withConventions(expected: any, added: ConventionsAdded) {
  return {
    traces: expected.traces.map((trace: any) => ({
      ...trace,
      ...added.traces[trace.otelTraceId],
      spans: trace.spans.map((span: any) => ({ ...span, ...added.spans[span.otelSpanId] })),
    })),
  };
}

describe('OTLP fixtures (shared/fixtures/otlp)', () => {
  it('finds the fixtures', () => {
    expect(bodies.length).toBeGreaterThanOrEqual(7);
  });

  describe.each(bodies)('%s', (name) => {
    const body = read(resolve(FIXTURES, name));
    const expected = read(resolve(FIXTURES, name.replace(/\.json$/, '.expected.json')));
    const added: ConventionsAdded = read(resolve(CONVENTIONS, name.replace(/\.json$/, '.conventions.json')));

    it('is valid OTLP/JSON', () => {
      const spanCount = expectedFormOf(body).traces.reduce((n, t) => n + t.spans.length, 0);
      expect(validateOtlpRequest(body)).toEqual({ spanCount });
    });

    it('keeps every value SPEC §2 gives: the conventions fill only empty fields and CUSTOM types', () => {
      const specSpans = new Map<string, any>(expected.traces.flatMap((t: any) => t.spans.map((s: any) => [s.otelSpanId, s])));
      for (const [spanId, fields] of Object.entries(added.spans)) {
        for (const field of Object.keys(fields)) {
          const spec = specSpans.get(spanId)[field];
          expect({ spanId, field, spec: field === 'type' && spec === 'CUSTOM' ? null : spec }).toEqual({ spanId, field, spec: null });
        }
      }
    });

    it('converts as its .expected.json and the conventions say', () => {
      expect(expectedFormOf(body)).toEqual(withConventions(expected, added));
    });
  });
});
