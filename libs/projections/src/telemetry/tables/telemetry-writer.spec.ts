import { type SpanDelta, emptyFacts } from '@app/domain';
import { prepareTelemetry } from './telemetry-writer';

const VERSION = '2026-11-27T10:00:00.000Z|a';

const span = (n: number): SpanDelta => ({
  projectId: '00000000-0000-4000-8000-000000000001',
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  otelSpanId: null,
  externalId: `span-${n}`,
  createdAt: '2026-11-27T10:00:00.000Z',
  values: { name: `step ${n}`, input: { text: `ä "quoted" ${n}` }, promptTokens: n },
  versions: { name: VERSION, input: VERSION, promptTokens: VERSION },
});

describe('prepareTelemetry', () => {
  it.each([1, 499, 500, 501, 1_201])('serializes %i span rows, across slices, as one JSON array in order', async (count) => {
    const facts = emptyFacts();
    facts.spans = Array.from({ length: count }, (_, n) => span(n));
    const { rows } = await prepareTelemetry(facts);
    const each = await Promise.all(
      facts.spans.map(async (s) => JSON.parse((await prepareTelemetry({ ...emptyFacts(), spans: [s] })).rows.spans as string)[0]),
    );
    expect(JSON.parse(rows.spans as string)).toEqual(each);
    expect(rows.traces).toBeNull();
  });
});
