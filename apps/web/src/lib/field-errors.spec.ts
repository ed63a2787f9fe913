import { fieldErrors } from './field-errors';

describe(fieldErrors.name, () => {
  it('puts each named field message beside its field, filter fields by their own name', () => {
    expect(fieldErrors('timeoutMs: must be at most 30000; filter.sampleRate: must be between 0 and 1; something else')).toEqual({
      byField: { timeoutMs: 'timeoutMs: must be at most 30000', sampleRate: 'filter.sampleRate: must be between 0 and 1' },
      general: ['something else'],
    });
  });

  it('reads a field named under `input` (the monitor RPC) as the field itself', () => {
    expect(fieldErrors('input.filter.model: does not apply to the metric score_mean (only filter.traceName does)').byField).toEqual({
      model: 'input.filter.model: does not apply to the metric score_mean (only filter.traceName does)',
    });
    expect(fieldErrors('input.windowSeconds: must be a whole number').byField).toEqual({ windowSeconds: 'input.windowSeconds: must be a whole number' });
  });
});
