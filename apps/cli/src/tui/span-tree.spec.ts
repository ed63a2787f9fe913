import { MAX_DRAWN_DEPTH, type TreeSpan, spanTree } from './span-tree';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const span = (id: string, parentId: string | null, start: number, end: number | null = null): TreeSpan => ({
  id,
  parentId,
  startTime: at(start),
  endTime: end === null ? null : at(end),
});

const layout = (spans: TreeSpan[]) => spanTree(spans).map((r) => `${r.prefix}${r.span.id}`);

describe(spanTree.name, () => {
  it('orders children by start time under their parent and draws the tree lines', () => {
    const spans = [
      span('b', 'root', 20),
      span('root', null, 0, 100),
      span('a', 'root', 10, 30),
      span('a1', 'a', 11),
      span('a2', 'a', 12),
      span('b1', 'b', 21),
    ];
    expect(layout(spans)).toEqual(['root', '├─a', '│ ├─a1', '│ └─a2', '└─b', '  └─b1']);
  });

  it('measures offsets from the earliest span and durations from each span', () => {
    const rows = spanTree([span('root', null, 1000, 1500), span('child', 'root', 1200, 1250), span('open', 'root', 1300)]);
    expect(rows.map((r) => [r.span.id, r.offsetMs, r.durationMs])).toEqual([
      ['root', 0, 500],
      ['child', 200, 50],
      ['open', 300, null],
    ]);
  });

  it('places a span without a start time (the API may answer null) without moving the others’ offsets', () => {
    const rows = spanTree([
      span('root', null, 1000, 1500),
      { ...span('unstarted', 'root', 0), startTime: null },
      span('child', 'root', 1200),
    ]);
    expect(rows.map((r) => [r.span.id, r.offsetMs, r.durationMs])).toEqual([
      ['root', 0, 500],
      ['child', 200, null],
      ['unstarted', 0, null],
    ]);
  });

  it('shows a span whose parent has not arrived as a root instead of hiding it', () => {
    expect(layout([span('root', null, 0), span('orphan', 'missing', 5)])).toEqual(['root', 'orphan']);
  });

  it('shows every span of a parent cycle once', () => {
    const rows = layout([span('x', 'y', 0), span('y', 'x', 1), span('self', 'self', 2)]);
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.replace(/[^a-z]/g, '')))).toEqual(new Set(['x', 'y', 'self']));
  });

  it('walks a chain of 10,000 levels without recursion and keeps the drawn indent bounded', () => {
    const spans = Array.from({ length: 10_000 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i - 1}`, i));
    const rows = spanTree(spans);
    expect(rows).toHaveLength(10_000);
    expect(rows[9_999].depth).toBe(9_999);
    expect(rows[9_999].prefix.length).toBeLessThanOrEqual(1 + MAX_DRAWN_DEPTH * 2);
    expect(rows[9_999].prefix.startsWith('…')).toBe(true);
  });

  it('lays out 150,000 spans, as many pages of a large trace hold', () => {
    const spans = [span('root', null, 0), ...Array.from({ length: 150_000 }, (_, i) => span(`s${i}`, i % 2 ? 'root' : null, i + 1))];
    const rows = spanTree(spans);
    expect(rows).toHaveLength(150_001);
    expect(rows[rows.length - 1].offsetMs).toBe(149_999);
  });
});
