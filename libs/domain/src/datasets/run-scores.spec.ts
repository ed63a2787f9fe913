import { isRunScoreEvent, splitRunScoreEvents, validateRunScoreEvent } from './run-scores';

const runScore = (body: Record<string, unknown>, id = 'e1') => ({ id, type: 'score-create', timestamp: '2026-11-27T10:00:00Z', body });

describe('run-level scores', () => {
  it('are the score-create events that name a dataset run and no trace', () => {
    expect(isRunScoreEvent(runScore({ datasetRunId: 'r', name: 'n', value: 1 }))).toBe(true);
    expect(isRunScoreEvent(runScore({ datasetRunId: 'r', traceId: 't', name: 'n', value: 1 }))).toBe(false);
    expect(isRunScoreEvent({ ...runScore({ datasetRunId: 'r' }), type: 'trace-create' })).toBe(false);
  });

  it('are split from the rest of a batch by index, the rest kept in order; a body that is no batch is all rest', () => {
    const trace = { id: 't1', type: 'trace-create', timestamp: '2026-11-27T10:00:00Z', body: { id: 'x' } };
    const score = runScore({ datasetRunId: 'r', name: 'n', value: 1 });
    const traceScore = runScore({ traceId: 'x', name: 'n', value: 1 }, 'e2');
    expect(splitRunScoreEvents({ batch: [trace, score, traceScore], metadata: { sdk: 'js' } })).toEqual({
      runScores: [{ index: 1, event: score }],
      rest: { batch: [trace, traceScore], metadata: { sdk: 'js' } },
    });
    const noRunScores = { batch: [trace] };
    expect(splitRunScoreEvents(noRunScores).rest).toBe(noRunScores);
    expect(splitRunScoreEvents('nope')).toEqual({ runScores: [], rest: 'nope' });
  });

  it('read as stored: the data type from the value, the event id when the body has none', () => {
    expect(validateRunScoreEvent(runScore({ datasetRunId: 'r', name: 'pass', value: true, environment: 'ci' }))).toEqual({
      id: 'e1',
      runId: 'r',
      name: 'pass',
      value: true,
      dataType: 'BOOLEAN',
      comment: null,
      metadata: null,
      source: 'API',
    });
    expect(validateRunScoreEvent(runScore({ id: 's1', datasetRunId: 'r', name: 'n', value: 0.5 })).id).toBe('s1');
  });

  it.each([
    [{ datasetRunId: 'r', name: 'n' }, 'body.value: must be a number, a string or a boolean'],
    [{ datasetRunId: 'r', name: 'n', value: 1, dataType: 'BOOLEAN' }, /^body\.dataType: must be one of/],
    [{ datasetRunId: 'r', value: 1 }, /^body\.name: /],
  ])('refuse %j naming the field', (body, message) => {
    expect(() => validateRunScoreEvent(runScore(body))).toThrow(message);
  });
});
