import fc from 'fast-check';
import { itemRequests, readDatasetImport } from './dataset-import';

describe('readDatasetImport', () => {
  it('reads JSONL items by line, skipping blank lines, and lists every line that is no item object', () => {
    const text = '{"input":"a"}\n\n{"input":{"q":1},"expectedOutput":2}\nnot json\n[1]\r\n';
    const read = readDatasetImport(text, 'jsonl');
    expect(read.lines).toEqual([
      { line: 1, item: { input: 'a' } },
      { line: 3, item: { input: { q: 1 }, expectedOutput: 2 } },
    ]);
    expect(read.errors.map((e) => e.line)).toEqual([4, 5]);
    expect(read.errors[0].message).toMatch(/^not JSON/);
    expect(read.errors[1].message).toBe('must be an object such as {"input": …, "expectedOutput": …}');
  });

  it('reads CSV columns input, expectedOutput and metadata; JSON-looking cells as JSON, others as text, empty ones left out', () => {
    const text = 'input,expectedOutput,metadata\n"{""q"":""2+2""}",4,\nplain text,"[1,2]","{""tag"":""x""}"\n';
    expect(readDatasetImport(text, 'csv')).toEqual({
      lines: [
        { line: 2, item: { input: { q: '2+2' }, expectedOutput: '4' } },
        { line: 3, item: { input: 'plain text', expectedOutput: [1, 2], metadata: { tag: 'x' } } },
      ],
      errors: [],
    });
  });

  it('names each bad CSV line: a cell that looks like JSON and is not, a row of the wrong width', () => {
    const read = readDatasetImport('input,metadata\nok,\n"{broken",\na,b,c\n', 'csv');
    expect(read.lines.map((l) => l.line)).toEqual([2]);
    expect(read.errors).toEqual([
      { line: 3, message: expect.stringMatching(/^input: looks like JSON but is not/) },
      { line: 4, message: 'has 3 fields; the header has 2' },
    ]);
  });

  it('refuses a CSV header with an unknown column, by name', () => {
    expect(readDatasetImport('input,expected\nx,y\n', 'csv').errors).toEqual([
      { line: 1, message: expect.stringContaining('unknown: expected') },
    ]);
  });
});

describe(itemRequests.name, () => {
  it('cuts the items into requests of at most 1,000, in order', () => {
    const items = Array.from({ length: 2_500 }, (_, i) => ({ id: `i${i}` }));
    const requests = itemRequests(items);
    expect(requests.map((r) => r.length)).toEqual([1_000, 1_000, 500]);
    expect(requests.flat()).toEqual(items);
  });

  it('keeps every item, in order, in requests within the byte bound (an item over it alone)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 60 }), fc.integer({ min: 1, max: 200 }), (items, maxBytes) => {
        const requests = itemRequests(items, maxBytes);
        expect(requests.flat()).toEqual(items);
        for (const r of requests) {
          expect(r.length).toBeGreaterThan(0);
          const bytes = r.reduce((n, i) => n + Buffer.byteLength(JSON.stringify(i)) + 1, 0);
          if (r.length > 1) expect(bytes).toBeLessThanOrEqual(maxBytes);
        }
      }),
    );
  });
});
