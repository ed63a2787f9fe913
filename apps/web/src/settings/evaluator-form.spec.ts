import { toEvaluatorInput } from './evaluator-form';

const values = {
  name: 'judge',
  url: 'https://e.test/hook',
  headers: 'Authorization: Bearer x:y\n\n X-A : 1 ',
  timeoutMs: '',
  retries: '2',
  spanTypes: 'LLM, TOOL',
  names: '',
  sampleRate: '0.5',
  enabled: true,
};

describe(toEvaluatorInput.name, () => {
  it('sends headers per line, lists split on commas, blank numbers left to the server default', () => {
    expect(toEvaluatorInput(values, { keepHeaders: false })).toEqual({
      name: 'judge',
      url: 'https://e.test/hook',
      headers: { Authorization: 'Bearer x:y', 'X-A': '1' },
      timeoutMs: undefined,
      retries: 2,
      filter: { spanTypes: ['LLM', 'TOOL'], names: [], sampleRate: 0.5 },
      enabled: true,
    });
  });
  it('leaves the stored headers alone on an edit that did not touch them', () => {
    expect(toEvaluatorInput(values, { keepHeaders: true })).not.toHaveProperty('headers');
  });
});
