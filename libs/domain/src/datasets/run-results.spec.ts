import { type RunItemResult, type RunScore, aggregateRun, compareRuns, newestScores, percentile } from './run-results';

const score = (name: string, value: RunScore['value'], timestamp = '2026-11-27T06:00:00.000000Z'): RunScore => ({
  name,
  value,
  comment: null,
  timestamp,
});
const result = (datasetItemId: string, over: Partial<RunItemResult> = {}): RunItemResult => ({
  datasetItemId,
  traceId: `trace-${datasetItemId}`,
  spanId: null,
  input: datasetItemId,
  expectedOutput: null,
  output: null,
  latencyMs: null,
  totalTokens: null,
  totalCost: null,
  scores: [],
  createdAt: '2026-11-27T06:00:00.000Z',
  ...over,
});

describe(percentile.name, () => {
  it.each([
    [[], 50, null],
    [[7], 95, 7],
    [[1, 2, 3, 4], 50, 2],
    [[4, 3, 2, 1], 95, 4],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 50, 50],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 95, 100],
    [Array.from({ length: 100 }, (_, i) => i + 1), 95, 95],
  ])('nearest rank of %j at p%d is %p: a value that was measured', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });
});

describe(aggregateRun.name, () => {
  it('counts items, averages each numeric or boolean score over the items that have it, sums cost and tokens', () => {
    const items = [
      result('a', {
        latencyMs: 100,
        totalCost: 0.5,
        totalTokens: 10,
        scores: [score('exact', 1), score('ok', true), score('label', 'good')],
      }),
      result('b', { latencyMs: 300, totalCost: 0.25, totalTokens: 20, scores: [score('exact', 0), score('ok', false)] }),
      result('c', { latencyMs: 200, scores: [score('exact', 0.5)] }),
      result('d'),
    ];
    expect(aggregateRun(items)).toEqual({
      count: 4,
      scores: [
        { name: 'exact', mean: 0.5, count: 3 },
        { name: 'ok', mean: 0.5, count: 2 },
      ],
      latencyMs: { p50: 200, p95: 300 },
      totalCost: 0.75,
      totalTokens: 30,
    });
  });

  it('answers nulls for a run with no item measured', () => {
    expect(aggregateRun([])).toEqual({ count: 0, scores: [], latencyMs: { p50: null, p95: null }, totalCost: null, totalTokens: null });
  });
});

describe(newestScores.name, () => {
  it('keeps the newest score of each name, sorted by name', () => {
    const older = score('exact', 0, '2026-11-27T06:00:00.000000Z');
    const newer = score('exact', 1, '2026-11-27T06:00:01.000000Z');
    expect(newestScores([newer, score('b', 2), older])).toEqual([score('b', 2), newer]);
  });
});

describe(compareRuns.name, () => {
  it('lines the runs up per dataset item, with null where a run has no result', () => {
    const a = [result('x', { output: 'A' }), result('y', { output: 'A' })];
    const b = [result('y', { output: 'B' }), result('z', { output: 'B' })];
    expect(compareRuns([a, b]).map((row) => [row.datasetItemId, row.results.map((r) => r?.output ?? null)])).toEqual([
      ['x', ['A', null]],
      ['y', ['A', 'B']],
      ['z', [null, 'B']],
    ]);
  });
});
