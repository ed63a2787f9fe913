import { buildWaterfall } from './waterfall';

const span = (id: string, parentId: string | null, start: number, end: number | null) => ({
  id,
  parentId,
  startTime: new Date(1_700_000_000_000 + start).toISOString(),
  endTime: end === null ? null : new Date(1_700_000_000_000 + end).toISOString(),
});

describe(buildWaterfall.name, () => {
  it('orders spans depth-first with offsets and durations from the first start', () => {
    const rows = buildWaterfall([span('c', 'a', 50, 100), span('a', null, 0, 200), span('b', 'a', 10, 40)]);
    expect(rows.map((r) => [r.span.id, r.depth, r.offsetMs, r.durationMs])).toEqual([
      ['a', 0, 0, 200],
      ['b', 1, 10, 30],
      ['c', 1, 50, 50],
    ]);
    expect(rows[2]).toMatchObject({ leftPct: 25, widthPct: 25 });
  });

  it('shows a span whose parent is missing as a root, and an open span without duration', () => {
    const rows = buildWaterfall([span('x', 'gone', 0, null), span('y', null, 5, 10)]);
    expect(rows.map((r) => [r.span.id, r.depth, r.durationMs])).toEqual([
      ['x', 0, null],
      ['y', 0, 5],
    ]);
  });

  it('shows every span of a parent cycle once', () => {
    const rows = buildWaterfall([span('p', 'q', 0, 10), span('q', 'p', 1, 5)]);
    expect(rows.map((r) => r.span.id).sort()).toEqual(['p', 'q']);
  });

  it('lays out 150,000 spans nested 20,000 deep, and scales bars to the extent given', () => {
    const spans = Array.from({ length: 150_000 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i < 20_000 ? i - 1 : 0}`, i, i + 1));
    const rows = buildWaterfall(spans, { extentMs: 300_000 });
    expect(rows).toHaveLength(150_000);
    expect(rows[19_999]).toMatchObject({ depth: 19_999 });
    expect(rows[1]).toMatchObject({ leftPct: (1 / 300_000) * 100 });
  });
});
