import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { foldFacts } from '@app/domain';
import { otlpToFacts } from './otlp-to-facts';
import { ENVELOPE } from './testing/otlp-builders';
import { validateOtlpRequest } from './validate-otlp-request';

/** The shared fixtures sit beside the repository (fixtures/README.md). */
const FIXTURES = resolve(__dirname, '../../../../shared/fixtures/otlp');
const read = (name: string): unknown => JSON.parse(readFileSync(resolve(FIXTURES, name), 'utf8'));
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

describe('OTLP fixtures (shared/fixtures/otlp)', () => {
  it('finds the fixtures', () => {
    expect(bodies.length).toBeGreaterThanOrEqual(7);
  });

  describe.each(bodies)('%s', (name) => {
    const body = read(name);

    it('is valid OTLP/JSON', () => {
      const spanCount = expectedFormOf(body).traces.reduce((n, t) => n + t.spans.length, 0);
      expect(validateOtlpRequest(body)).toEqual({ spanCount });
    });

    it('converts as its .expected.json says', () => {
      expect(expectedFormOf(body)).toEqual(read(name.replace(/\.json$/, '.expected.json')));
    });
  });
});
