import fc from 'fast-check';
import { spanTokens, subtreeTotals } from './subtree-totals';
import { buildWaterfall } from './waterfall';

interface TestSpan {
  id: string;
  parentId: string | null;
  startTime: string | null;
  endTime: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
  cost: number | null;
}

const span = (id: string, parentId: string | null, usage: Partial<TestSpan> = {}): TestSpan => ({
  id,
  parentId,
  startTime: null,
  endTime: null,
  promptTokens: null,
  completionTokens: null,
  totalTokens: null,
  cost: null,
  ...usage,
});

const byId = (spans: TestSpan[]) => {
  const rows = buildWaterfall(spans);
  const totals = subtreeTotals(rows);
  return Object.fromEntries(rows.map((r, i) => [r.span.id, totals[i]]));
};

describe(subtreeTotals.name, () => {
  it('sums each span with the spans below it, and keeps a subtree with no figures null', () => {
    const totals = byId([
      span('root', null),
      span('agent', 'root', { cost: 0.5 }),
      span('llm', 'agent', { totalTokens: 100, cost: 0.25 }),
      span('tool', 'agent'),
      span('other', 'root', { promptTokens: 7, completionTokens: 3 }),
      span('empty', null),
    ]);
    expect(totals).toEqual({
      root: { tokens: 110, cost: 0.75 },
      agent: { tokens: 100, cost: 0.75 },
      llm: { tokens: 100, cost: 0.25 },
      tool: { tokens: null, cost: null },
      other: { tokens: 10, cost: null },
      empty: { tokens: null, cost: null },
    });
  });

  it('counts tokens as the trace total does: total, else prompt plus completion, else either', () => {
    expect([
      spanTokens(span('a', null, { totalTokens: 5, promptTokens: 1, completionTokens: 1 })),
      spanTokens(span('b', null, { promptTokens: 2, completionTokens: 3 })),
      spanTokens(span('c', null, { completionTokens: 4 })),
      spanTokens(span('d', null)),
    ]).toEqual([5, 5, 4, null]);
  });

  it("gives the roots together the sum over all spans, whatever the tree's shape", () => {
    const usage = fc.record({
      promptTokens: fc.option(fc.nat(10_000)),
      completionTokens: fc.option(fc.nat(10_000)),
      totalTokens: fc.option(fc.nat(20_000)),
      cost: fc.option(fc.integer({ min: 0, max: 1_000_000 }).map((c) => c / 1_000_000)),
    });
    // Each span's parent is any span (itself, a later one, a cycle, a missing one) or none.
    const trees = fc.array(fc.tuple(usage, fc.option(fc.nat(60))), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(trees, (specs) => {
        const spans = specs.map(([u, parent], i) => span(`s${i}`, parent === null ? null : `s${parent}`, u));
        const rows = buildWaterfall(spans);
        const totals = subtreeTotals(rows);
        const roots = totals.filter((_, i) => rows[i].depth === 0);
        const sum = (values: (number | null)[]) => values.reduce<number | null>((a, b) => (a === null ? b : b === null ? a : a + b), null);
        expect(sum(roots.map((t) => t.tokens))).toBe(sum(spans.map(spanTokens)));
        const cost = sum(roots.map((t) => t.cost));
        const expected = sum(spans.map((s) => s.cost));
        if (expected === null) expect(cost).toBeNull();
        else expect(cost).toBeCloseTo(expected, 9);
      }),
    );
  });

  it('sums a chain of 150,000 spans without overflowing the stack', () => {
    const spans = Array.from({ length: 150_000 }, (_, i) => span(`s${i}`, i ? `s${i - 1}` : null, { totalTokens: 2, cost: 0.5 }));
    const rows = buildWaterfall(spans);
    const totals = subtreeTotals(rows);
    expect(totals[0]).toEqual({ tokens: 300_000, cost: 75_000 });
    expect(totals[149_999]).toEqual({ tokens: 2, cost: 0.5 });
  });

  it('sums a root with 150,000 children', () => {
    const spans = [
      span('root', null, { totalTokens: 1 }),
      ...Array.from({ length: 150_000 }, (_, i) => span(`c${i}`, 'root', { totalTokens: 1 })),
    ];
    expect(subtreeTotals(buildWaterfall(spans))[0].tokens).toBe(150_001);
  });
});
