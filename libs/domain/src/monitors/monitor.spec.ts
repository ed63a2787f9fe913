import { DomainError } from '../errors';
import { latencyBucketOf } from '../model-stats/latency-histogram';
import { type WindowSums, evaluationWindow, monitorInputOf, monitorStateOf, monitorValue, validateMonitorInput } from './monitor';

const valid = { name: 'slow chat', metric: 'latency_p95', windowSeconds: 3600, comparison: '>', threshold: 1000 };
const refusal = (input: unknown): string => {
  try {
    validateMonitorInput(input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).message;
  }
  throw new Error('accepted');
};
const spans = (calls: number, errors: number, latencies: number[] = [], costUsd = 0, unpricedCalls = 0): WindowSums['spans'] => {
  const latency: Record<string, number> = {};
  for (const ms of latencies) latency[latencyBucketOf(ms)] = (latency[latencyBucketOf(ms)] ?? 0) + 1;
  return { calls, errors, costUsd, promptTokens: 0, completionTokens: 0, totalTokens: 0, unpricedCalls, latency };
};

describe('validateMonitorInput', () => {
  it('reads a monitor, enabled unless said otherwise, and gives back the client shape', () => {
    const m = validateMonitorInput({ ...valid, filter: { model: 'gpt-4o', traceName: 'chat', operation: 'chat' } });
    expect(m).toEqual({ ...valid, scoreName: null, filter: { model: 'gpt-4o', traceName: 'chat', operation: 'chat' }, enabled: true });
    expect(validateMonitorInput(monitorInputOf(m))).toEqual(m);
    expect(
      validateMonitorInput({
        ...valid,
        metric: 'score_pass_rate',
        scoreName: 'helpful',
        threshold: 0.8,
        comparison: '<',
        filter: { traceName: 'chat' },
      }),
    ).toMatchObject({ scoreName: 'helpful' });
  });

  it('refuses with a message naming the field', () => {
    expect(refusal({ ...valid, metric: 'p99' })).toBe(
      'input.metric: must be one of error_rate, latency_p95, cost, calls, score_mean, score_pass_rate, unpriced_spans',
    );
    expect(refusal({ ...valid, windowSeconds: 60 })).toMatch(/^input\.windowSeconds: must be a whole number of seconds from 300/);
    expect(refusal({ ...valid, windowSeconds: 8 * 86_400 })).toMatch(/^input\.windowSeconds:/);
    expect(refusal({ ...valid, windowSeconds: 301 })).toMatch(/^input\.windowSeconds:/);
    expect(refusal({ ...valid, comparison: '==' })).toBe('input.comparison: must be one of >, >=, <, <=');
    expect(refusal({ ...valid, threshold: '5' })).toBe('input.threshold: must be a finite number');
    expect(refusal({ ...valid, name: '' })).toBe('input.name: must be a string of 1 to 200 characters');
    expect(refusal({ ...valid, filter: { model: 7 } })).toBe('input.filter.model: must be a string of 1 to 256 characters');
    expect(refusal({ ...valid, filter: { region: 'eu' } })).toMatch(/^input\.filter\.region: is not a monitor field/);
    expect(refusal({ ...valid, thresold: 3 })).toMatch(/^input\.thresold: is not a monitor field/);
    expect(refusal({ ...valid, metric: 'score_mean' })).toBe('input.scoreName: is required for the metric score_mean');
    expect(refusal({ ...valid, scoreName: 'x' })).toBe('input.scoreName: applies only to the metrics score_mean, score_pass_rate');
    expect(refusal({ ...valid, metric: 'score_mean', scoreName: 'x', filter: { model: 'm' } })).toMatch(
      /^input\.filter\.model: does not apply/,
    );
    expect(refusal({ ...valid, metric: 'score_mean', scoreName: 'x', filter: { operation: 'chat' } })).toMatch(
      /^input\.filter\.operation: does not apply/,
    );
    expect(refusal({ ...valid, filter: { operation: '' } })).toBe('input.filter.operation: must be a string of 1 to 256 characters');
    expect(refusal({ ...valid, metric: 'error_rate', threshold: 5 })).toBe('input.threshold: must be from 0 to 1 for the rate error_rate');
    expect(refusal([])).toBe('input must be an object');
  });
});

describe('monitor evaluation', () => {
  it('windows end at a 5-minute boundary at least the settle time ago (or take the bucket filling in, when negative)', () => {
    const now = Date.parse('2026-11-24T11:08:30Z');
    expect(evaluationWindow(now, 3600, 120_000)).toEqual({ from: new Date('2026-11-24T10:05:00Z'), to: new Date('2026-11-24T11:05:00Z') });
    expect(evaluationWindow(now, 300, 240_000)).toEqual({ from: new Date('2026-11-24T10:55:00Z'), to: new Date('2026-11-24T11:00:00Z') });
    expect(evaluationWindow(now, 300, -300_000).to).toEqual(new Date('2026-11-24T11:10:00Z'));
  });

  it('computes each metric, with no value where nothing was counted except calls, cost and unpriced spans', () => {
    const quiet: WindowSums = { spans: null, scores: [] };
    expect(monitorValue('calls', null, quiet)).toBe(0);
    expect(monitorValue('cost', null, quiet)).toBe(0);
    expect(monitorValue('unpriced_spans', null, quiet)).toBe(0);
    for (const metric of ['error_rate', 'latency_p95'] as const) expect(monitorValue(metric, null, quiet)).toBeNull();
    expect(monitorValue('score_mean', 'q', quiet)).toBeNull();
    const busy: WindowSums = {
      spans: spans(20, 5, [...Array(19).fill(10), 5000], 0.1 + 0.2, 7),
      scores: [
        { name: 'q', source: 'EVAL', scores: 3, numericScores: 3, valueSum: 1.5, judged: 3, passed: 1 },
        { name: 'q', source: 'API', scores: 1, numericScores: 1, valueSum: 0.5, judged: 1, passed: 1 },
        { name: 'other', source: 'API', scores: 9, numericScores: 9, valueSum: 9, judged: 9, passed: 9 },
      ],
    };
    expect(monitorValue('calls', null, busy)).toBe(20);
    expect(monitorValue('cost', null, busy)).toBe(0.3);
    expect(monitorValue('unpriced_spans', null, busy)).toBe(7);
    expect(monitorValue('error_rate', null, busy)).toBe(0.25);
    expect(monitorValue('latency_p95', null, busy)).toBeCloseTo(10, -1);
    expect(monitorValue('score_mean', 'q', busy)).toBe(0.5);
    expect(monitorValue('score_pass_rate', 'q', busy)).toBe(0.5);
  });

  it('compares with the threshold, NO_DATA without a value', () => {
    expect(monitorStateOf(null, '>', 1)).toBe('NO_DATA');
    expect(monitorStateOf(2, '>', 1)).toBe('ALERT');
    expect(monitorStateOf(1, '>', 1)).toBe('OK');
    expect(monitorStateOf(1, '>=', 1)).toBe('ALERT');
    expect(monitorStateOf(0.4, '<', 0.5)).toBe('ALERT');
    expect(monitorStateOf(0.5, '<=', 0.5)).toBe('ALERT');
    expect(monitorStateOf(0.6, '<=', 0.5)).toBe('OK');
  });
});
