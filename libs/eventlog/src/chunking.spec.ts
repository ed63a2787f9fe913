import fc from 'fast-check';
import type { ExportTraceServiceRequest } from '@app/otlp';
import { exportOf, span } from '@app/otlp/testing/otlp-builders';
import { chunkNativeBatch, chunkOtlpExport } from './chunking';

const decode = (chunks: Uint8Array[]) => chunks.map((c) => JSON.parse(Buffer.from(c).toString('utf8')) as { batch: unknown[] });

describe(chunkNativeBatch.name, () => {
  it('keeps the client bytes when they fit one message', () => {
    const raw = Buffer.from('{"batch":[{"id":"a"}],"extra":true}');
    const chunks = chunkNativeBatch(raw, [{ id: 'a' }], 1024);
    expect(chunks).toEqual([raw]);
  });

  it('splits in order under the limit, each event whole, and is deterministic', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.string(), input: fc.string({ maxLength: 200 }) }), { minLength: 1, maxLength: 60 }),
        (events) => {
          const raw = Buffer.from(JSON.stringify({ batch: events }));
          const limit = 300;
          const chunks = chunkNativeBatch(raw, events, limit);
          expect(decode(chunks).flatMap((c) => c.batch)).toEqual(events);
          for (const c of chunks) if (decode([c])[0].batch.length > 1) expect(c.byteLength).toBeLessThanOrEqual(limit);
          expect(chunkNativeBatch(raw, events, limit)).toEqual(chunks);
        },
      ),
    );
  });

  it('gives an event larger than the limit a chunk of its own', () => {
    const events = [{ id: 'small' }, { id: 'big', input: 'x'.repeat(2_000) }, { id: 'small2' }];
    const chunks = decode(chunkNativeBatch(Buffer.from(JSON.stringify({ batch: events })), events, 500));
    expect(chunks.map((c) => c.batch.length)).toEqual([1, 1, 1]);
  });
});

describe(chunkOtlpExport.name, () => {
  const spans = Array.from({ length: 30 }, (_, i) =>
    span({ spanId: (i + 1).toString(16).padStart(16, '0'), name: `span-${i}`, attributes: [{ key: 'n', value: { intValue: i } }] }),
  );
  const body = exportOf(spans);
  const decodeOtlp = (chunks: Uint8Array[]) => chunks.map((c) => JSON.parse(Buffer.from(c).toString('utf8')) as ExportTraceServiceRequest);

  it('keeps the client bytes when they fit one message', () => {
    const raw = Buffer.from(`  ${JSON.stringify(body)}  `);
    expect(chunkOtlpExport(raw, body, raw.byteLength)).toEqual([raw]);
  });

  it('splits a larger export by spans, each chunk under the limit with its resource and scope', () => {
    const raw = Buffer.from(JSON.stringify(body));
    const limit = Math.ceil(raw.byteLength / 4);
    const chunks = chunkOtlpExport(raw, body, limit);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.byteLength).toBeLessThanOrEqual(limit);
    const decoded = decodeOtlp(chunks);
    expect(decoded.flatMap((c) => c.resourceSpans!.flatMap((r) => r.scopeSpans!.flatMap((s) => s.spans)))).toEqual(spans);
    for (const c of decoded)
      expect(c).toMatchObject({
        resourceSpans: [
          { resource: body.resourceSpans![0].resource, scopeSpans: [{ scope: body.resourceSpans![0].scopeSpans![0].scope }] },
        ],
      });
    expect(chunkOtlpExport(raw, body, limit)).toEqual(chunks);
  });
});
