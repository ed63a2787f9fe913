import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import type { ExportTraceServiceRequest, Span } from './otlp-types';
import { splitOtlpRequest } from './split-otlp-request';
import { attrs, exportOf, span, str } from './testing/otlp-builders';

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Every span with the resource and scope it came with, in order: what a split must keep. */
const spansWithContext = (body: ExportTraceServiceRequest) =>
  (body.resourceSpans ?? []).flatMap(({ scopeSpans, ...resource }) =>
    (scopeSpans ?? []).flatMap(({ spans, ...scope }) => (spans ?? []).map((s) => JSON.stringify([resource, scope, s]))),
  );

const spanN = (i: number, extra = ''): Span => span({ spanId: (i + 1).toString(16).padStart(16, '0'), name: `span-${i}${extra}` });

describe(splitOtlpRequest.name, () => {
  it('returns a body that fits as it is', () => {
    const body = exportOf([span()]);
    expect(splitOtlpRequest(body, bytesOf(body))[0]).toBe(body);
  });

  it('splits by spans, each chunk within the limit and keeping resource and scope', () => {
    const body: ExportTraceServiceRequest = {
      resourceSpans: [
        {
          resource: { attributes: attrs({ 'service.name': 'a' }) },
          schemaUrl: 'https://x',
          scopeSpans: [
            { scope: { name: 's1' }, spans: Array.from({ length: 40 }, (_, i) => spanN(i)) },
            { scope: { name: 's2' }, spans: [spanN(40)] },
          ],
        },
        {
          resource: { attributes: attrs({ 'service.name': 'b' }) },
          scopeSpans: [{ spans: Array.from({ length: 40 }, (_, i) => spanN(i + 41)) }],
        },
      ],
    };
    const maxBytes = 2_000;
    const chunks = splitOtlpRequest(body, maxBytes);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(bytesOf(chunk)).toBeLessThanOrEqual(maxBytes);
    expect(chunks.flatMap(spansWithContext)).toEqual(spansWithContext(body));
    expect(splitOtlpRequest(body, maxBytes)).toEqual(chunks);
  });

  it('fills chunks: no two neighbours would fit in one', () => {
    const body = exportOf(Array.from({ length: 100 }, (_, i) => spanN(i)));
    const chunks = splitOtlpRequest(body, 1_500);
    for (let i = 1; i < chunks.length; i++) {
      const merged = exportOf([
        ...chunks[i - 1].resourceSpans![0].scopeSpans![0].spans!,
        chunks[i].resourceSpans![0].scopeSpans![0].spans![0],
      ]);
      expect(bytesOf(merged)).toBeGreaterThan(1_500);
    }
  });

  it('puts a span bigger than the limit alone in its chunk', () => {
    const body = exportOf([spanN(0), span({ ...spanN(1), attributes: [{ key: 'big', value: str('x'.repeat(5_000)) }] }), spanN(2)]);
    const chunks = splitOtlpRequest(body, 1_000);
    expect(chunks.map((c) => spansWithContext(c).length)).toEqual([1, 1, 1]);
    expect(bytesOf(chunks[1])).toBeGreaterThan(1_000);
    expect(chunks.flatMap(spansWithContext)).toEqual(spansWithContext(body));
  });

  it('measures UTF-8 bytes, not UTF-16 units', () => {
    const body = exportOf(Array.from({ length: 20 }, (_, i) => spanN(i, '👋é'.repeat(20))));
    for (const chunk of splitOtlpRequest(body, 1_200)) expect(bytesOf(chunk)).toBeLessThanOrEqual(1_200);
  });

  it('splits the largest fixture at any limit without losing or reordering a span', () => {
    const body = JSON.parse(
      readFileSync(resolve(__dirname, '../../../../shared/fixtures/otlp/langgraph-js-2025-10-30.json'), 'utf8'),
    ) as ExportTraceServiceRequest;
    fc.assert(
      fc.property(fc.integer({ min: 100, max: bytesOf(body) + 10 }), (maxBytes) => {
        const chunks = splitOtlpRequest(body, maxBytes);
        expect(chunks.flatMap(spansWithContext)).toEqual(spansWithContext(body));
        // Over the limit only when a single span does not fit.
        for (const chunk of chunks) if (bytesOf(chunk) > maxBytes) expect(spansWithContext(chunk)).toHaveLength(1);
      }),
      { numRuns: 50 },
    );
  });

  it('yields no chunk for an oversized export without spans', () => {
    expect(splitOtlpRequest({ resourceSpans: [{ resource: { attributes: attrs({ big: 'x'.repeat(100) }) } }] }, 50)).toEqual([]);
  });
});
