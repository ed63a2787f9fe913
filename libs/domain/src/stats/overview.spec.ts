import { latencyBucketOf } from '../model-stats/latency-histogram';
import { DomainError } from '../errors';
import { type OverviewSums, type SpanSums, buildOverview, chooseBucketSeconds, overviewTotals, validateOverviewRange } from './overview';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-24T10:00:00.000Z');

const histOf = (...ms: number[]) => {
  const h: Record<string, number> = {};
  for (const v of ms) h[latencyBucketOf(v)] = (h[latencyBucketOf(v)] ?? 0) + 1;
  return h;
};
const spans = (over: Partial<SpanSums>): SpanSums => ({
  calls: 0,
  errors: 0,
  costUsd: 0,
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  unpricedCalls: 0,
  latency: {},
  ...over,
});
const refusal = (input: unknown): string => {
  try {
    validateOverviewRange(input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).message;
  }
  throw new Error('accepted');
};

describe('overview range', () => {
  it('chooses the smallest listed bucket giving at most 200 points', () => {
    expect(chooseBucketSeconds(T0, T0 + HOUR)).toBe(300);
    expect(chooseBucketSeconds(T0, T0 + 24 * HOUR)).toBe(600);
    expect(chooseBucketSeconds(T0, T0 + 7 * 24 * HOUR)).toBe(3600);
    expect(chooseBucketSeconds(T0, T0 + 90 * 24 * HOUR)).toBe(43200);
    expect(Math.ceil((90 * 24 * HOUR) / 43_200_000)).toBeLessThanOrEqual(200);
  });

  it('keeps a requested bucket that is a whole number of 5-minute buckets', () => {
    expect(validateOverviewRange({ from: new Date(T0).toISOString(), to: new Date(T0 + HOUR).toISOString(), bucketSeconds: 600 })).toEqual({
      fromMs: T0,
      toMs: T0 + HOUR,
      bucketSeconds: 600,
    });
  });

  it('refuses bad ranges naming the field', () => {
    const from = new Date(T0).toISOString();
    expect(refusal({ to: from })).toMatch(/^input\.from: must be an ISO 8601 timestamp/);
    expect(refusal({ from, to: 'yesterday' })).toMatch(/^input\.to: must be an ISO 8601 timestamp/);
    expect(refusal({ from, to: from })).toBe('input.to: must be after input.from');
    expect(refusal({ from, to: new Date(T0 + 91 * 24 * HOUR).toISOString() })).toBe('input.to: must be at most 90 days after input.from');
    expect(refusal({ from, to: new Date(T0 + HOUR).toISOString(), bucketSeconds: 60 })).toBe(
      'input.bucketSeconds: must be a whole multiple of 300 seconds',
    );
    expect(refusal({ from, to: new Date(T0 + HOUR).toISOString(), bucketSeconds: '300' })).toMatch(/^input\.bucketSeconds:/);
    expect(refusal({ from, to: new Date(T0 + 30 * 24 * HOUR).toISOString(), bucketSeconds: 300 })).toMatch(
      /^input\.bucketSeconds: gives 8641 points/,
    );
  });
});

describe('buildOverview', () => {
  const range = { fromMs: T0 + 2 * 60_000, toMs: T0 + 20 * 60_000, bucketSeconds: 600 };
  const sums: OverviewSums = {
    series: [
      {
        t: T0 + 600_000,
        ...spans({ calls: 20, errors: 1, costUsd: 0.1 + 0.2, totalTokens: 300, latency: histOf(...Array(19).fill(100), 5000) }),
      },
    ],
    traces: [
      { t: T0, traces: 2 },
      { t: T0 + 600_000, traces: 5 },
    ],
    models: [
      { model: 'b', ...spans({ calls: 3, latency: histOf(10, 10, 10) }) },
      { model: 'a', ...spans({ calls: 3, costUsd: 0.5, promptTokens: 7, completionTokens: 9, unpricedCalls: 1 }) },
      { model: 'c', ...spans({ calls: 9 }) },
    ],
    spanTypes: [
      { spanType: 'GENERATION', ...spans({ calls: 4, errors: 1 }) },
      { spanType: 'SPAN', ...spans({ calls: 0 }) },
    ],
    operations: [],
    scores: [
      { name: 'quality', source: 'EVAL', scores: 4, numericScores: 4, valueSum: 3, judged: 4, passed: 1 },
      { name: 'tone', source: 'API', scores: 2, numericScores: 0, valueSum: 0, judged: 0, passed: 0 },
    ],
  };

  it('has one point per bucket of the range from the bucket holding from, empty ones as zeros and nulls', () => {
    const o = buildOverview(range, sums);
    expect(o.from).toBe('2026-11-24T10:02:00.000Z');
    expect(o.bucketSeconds).toBe(600);
    expect(o.series.map((p) => p.t)).toEqual(['2026-11-24T10:00:00.000Z', '2026-11-24T10:10:00.000Z']);
    expect(o.series[0]).toEqual({
      t: '2026-11-24T10:00:00.000Z',
      traces: 2,
      spans: 0,
      errors: 0,
      latencyP50Ms: null,
      latencyP95Ms: null,
      costUsd: 0,
      tokens: 0,
    });
    const p = o.series[1];
    expect(p).toMatchObject({ traces: 5, spans: 20, errors: 1, costUsd: 0.3, tokens: 300 });
    // Quantiles come from the merged histogram, within the histogram's 9.1%.
    expect(Math.abs((p.latencyP50Ms as number) - 100) / 100).toBeLessThan(0.091);
    expect(Math.abs((p.latencyP95Ms as number) - 100) / 100).toBeLessThan(0.091);
  });

  it('orders models and span types by calls, with ratios of sums and null where nothing was counted', () => {
    const o = buildOverview(range, sums);
    expect(o.models.map((m) => m.model)).toEqual(['c', 'a', 'b']);
    expect(o.models[1]).toEqual({
      model: 'a',
      calls: 3,
      errors: 0,
      costUsd: 0.5,
      promptTokens: 7,
      completionTokens: 9,
      latencyP50Ms: null,
      latencyP95Ms: null,
      unpricedCalls: 1,
    });
    expect(o.models[2].latencyP95Ms).toBeCloseTo(10, -1);
    expect(o.spanTypes).toEqual([
      { spanType: 'GENERATION', calls: 4, errors: 1, errorRate: 0.25 },
      { spanType: 'SPAN', calls: 0, errors: 0, errorRate: null },
    ]);
    expect(o.scores).toEqual([
      { name: 'quality', source: 'EVAL', count: 4, mean: 0.75, passRate: 0.25 },
      { name: 'tone', source: 'API', count: 2, mean: null, passRate: null },
    ]);
  });

  it('counts LLM calls by operation, not by type, and sums each operation over its span types', () => {
    const o = buildOverview(range, {
      ...sums,
      operations: [
        {
          operation: 'chat',
          spanType: 'LLM',
          ...spans({ calls: 5, errors: 1, costUsd: 0.1, totalTokens: 50, latency: histOf(100, 100, 100, 100, 100) }),
        },
        { operation: 'chat', spanType: 'GENERATION', ...spans({ calls: 2, costUsd: 0.2, totalTokens: 20, latency: histOf(100, 100) }) },
        { operation: 'text_completion', spanType: 'LLM', ...spans({ calls: 1 }) },
        // Tools and agents sent with gen_ai.* keys are typed LLM (SPEC 2.3 row 2): not LLM calls.
        { operation: 'execute_tool', spanType: 'LLM', ...spans({ calls: 4, errors: 2 }) },
        { operation: 'invoke_agent', spanType: 'LLM', ...spans({ calls: 1 }) },
        { operation: '', spanType: 'LLM', ...spans({ calls: 3 }) },
        { operation: '', spanType: 'CHAIN', ...spans({ calls: 6 }) },
      ],
    });
    expect(o.llmCalls).toBe(5 + 2 + 1 + 3);
    expect(o.operations.map((x) => [x.operation, x.calls])).toEqual([
      [null, 9],
      ['chat', 7],
      ['execute_tool', 4],
      ['invoke_agent', 1],
      ['text_completion', 1],
    ]);
    const chat = o.operations[1];
    expect(chat).toMatchObject({ errors: 1, errorRate: Number((1 / 7).toPrecision(12)), costUsd: 0.3, tokens: 70 });
    expect(Math.abs((chat.latencyP50Ms as number) - 100) / 100).toBeLessThan(0.091);
    expect(o.operations[2]).toMatchObject({ errors: 2, errorRate: 0.5, latencyP50Ms: null });
  });
});

describe(overviewTotals.name, () => {
  it('adds up the series over the range', () => {
    const point = { latencyP50Ms: null, latencyP95Ms: null };
    expect(
      overviewTotals({
        series: [
          { t: 'a', traces: 2, spans: 5, errors: 1, costUsd: 0.1, tokens: 30, ...point },
          { t: 'b', traces: 1, spans: 2, errors: 0, costUsd: 0.2, tokens: 12, ...point },
        ],
      }),
    ).toEqual({ traces: 3, spans: 7, errors: 1, costUsd: 0.3, tokens: 42 });
  });
});
