import { fieldErrors, formErrors } from './field-errors';

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
    expect(fieldErrors('input.windowSeconds: must be a whole number').byField).toEqual({
      windowSeconds: 'input.windowSeconds: must be a whole number',
    });
  });
});

describe(formErrors.name, () => {
  const FIELDS = ['name', 'windowMinutes', 'threshold'] as const;

  it('answers nothing without a message', () => {
    expect(formErrors(null, FIELDS)).toEqual({ by: {}, general: [] });
  });

  it('puts a renamed server field beside the form field that asks for it, and a field the form lacks with the general messages', () => {
    expect(
      formErrors(
        'input.windowSeconds: must be a multiple of 300; threshold: must be a number; input.scoreName: is required; quota exceeded',
        FIELDS,
        { windowSeconds: 'windowMinutes' },
      ),
    ).toEqual({
      by: { windowMinutes: 'input.windowSeconds: must be a multiple of 300', threshold: 'threshold: must be a number' },
      general: ['quota exceeded', 'input.scoreName: is required'],
    });
  });
});

describe(`${fieldErrors.name} on deeper paths`, () => {
  it("names a header's or a judge's member by the field that holds it", () => {
    expect(
      fieldErrors(
        'headers.X-Org: is set by the evaluator call itself; judge.categories[1]: is given twice; judge.model: must be a model name',
      ).byField,
    ).toEqual({
      headers: 'headers.X-Org: is set by the evaluator call itself',
      categories: 'judge.categories[1]: is given twice',
      model: 'judge.model: must be a model name',
    });
  });
});
