import { CliError } from '../output';
import { describeRun, readJsonl } from './datasets.command';

describe(readJsonl.name, () => {
  it('reads one object per line and skips blank lines', () => {
    expect(readJsonl('{"id":"a"}\n\n{"id":"b","input":1}\n', 'items.jsonl')).toEqual([{ id: 'a' }, { id: 'b', input: 1 }]);
  });

  it.each([
    ['{"id":"a"}\n{oops', 'items.jsonl:2: not JSON'],
    ['[1,2]', 'items.jsonl:1: must be an object such as {"input": …, "expectedOutput": …}'],
  ])('names the line at fault in %j', (text, message) => {
    expect(() => readJsonl(text, 'items.jsonl')).toThrow(CliError);
    expect(() => readJsonl(text, 'items.jsonl')).toThrow(message);
  });
});

describe(describeRun.name, () => {
  it("shows the run's means and its own scores above its items", () => {
    const text = describeRun({
      id: 'r',
      name: 'baseline',
      description: null,
      metadata: null,
      datasetId: 'd',
      datasetName: 'capitals',
      createdAt: '2026-11-27T10:00:00.000Z',
      updatedAt: '2026-11-27T10:00:00.000Z',
      aggregates: {
        count: 1,
        scores: [{ name: 'exact', mean: 1, count: 1 }],
        latencyMs: { p50: 5, p95: 5 },
        totalCost: null,
        totalTokens: null,
      },
      scores: [{ name: 'pass_rate', value: 0.75, comment: null, timestamp: '2026-11-27T10:00:00.000Z' }],
      items: [],
      meta: { page: 1, limit: 1000, totalItems: 1, totalPages: 1 },
    });
    expect(text.split('\n').slice(0, 3)).toEqual([
      'capitals / baseline: 1 items, latency p50 5 ms, p95 5 ms, cost -',
      '  exact: mean 1 over 1',
      '  pass_rate (run): 0.75',
    ]);
  });
});
