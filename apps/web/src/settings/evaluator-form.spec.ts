import { EMPTY_EVALUATOR, type EvaluatorFormValues, toEvaluatorInput } from './evaluator-form';

const webhook: EvaluatorFormValues = {
  ...EMPTY_EVALUATOR,
  name: 'judge',
  url: 'https://e.test/hook',
  headers: 'Authorization: Bearer x:y\n\n X-A : 1 ',
  retries: '2',
  spanTypes: 'LLM, TOOL',
  sampleRate: '0.5',
};

const judge: EvaluatorFormValues = {
  ...EMPTY_EVALUATOR,
  name: 'tone',
  kind: 'llm-judge',
  url: 'https://left.over/from-webhook',
  connectionId: 'c0ffee00-0000-4000-8000-000000000001',
  model: 'gpt-4.1-mini',
  promptName: 'judge/tone',
  scoreType: 'categorical',
  categories: [' polite ', '', 'rude'],
};

describe(toEvaluatorInput.name, () => {
  it('sends headers per line, lists split on commas, blank numbers left to the server default', () => {
    expect(toEvaluatorInput(webhook, { editing: false, keepHeaders: false })).toEqual({
      name: 'judge',
      kind: 'webhook',
      url: 'https://e.test/hook',
      headers: { Authorization: 'Bearer x:y', 'X-A': '1' },
      target: 'span',
      timeoutMs: undefined,
      retries: 2,
      filter: { spanTypes: ['LLM', 'TOOL'], names: [], sampleRate: 0.5 },
      enabled: true,
    });
  });

  it('leaves the stored headers alone on an edit that did not touch them, and the kind, which an update cannot change', () => {
    const input = toEvaluatorInput(webhook, { editing: true, keepHeaders: true });
    expect(input).not.toHaveProperty('headers');
    expect(input).not.toHaveProperty('kind');
  });

  it("sends a judge's settings without a webhook's fields, its categories trimmed and blank rows dropped", () => {
    const input = toEvaluatorInput(judge, { editing: false, keepHeaders: false });
    expect(input).toMatchObject({
      kind: 'llm-judge',
      judge: {
        connectionId: judge.connectionId,
        model: 'gpt-4.1-mini',
        prompt: { name: 'judge/tone' },
        scoreType: 'categorical',
        categories: ['polite', 'rude'],
      },
    });
    expect(input).not.toHaveProperty('url');
    expect(input).not.toHaveProperty('headers');
  });

  it('sends categories for a categorical judge only, and a label only when one is chosen', () => {
    const numeric = toEvaluatorInput({ ...judge, scoreType: 'numeric', promptLabel: 'staging' }, { editing: false, keepHeaders: false });
    expect(numeric).toMatchObject({ judge: { scoreType: 'numeric', prompt: { name: 'judge/tone', label: 'staging' } } });
    expect((numeric as { judge: object }).judge).not.toHaveProperty('categories');
  });

  it('sends the quiet window for a trace target and no span types, which do not apply to traces', () => {
    expect(toEvaluatorInput({ ...judge, target: 'trace', quietSeconds: '60' }, { editing: false, keepHeaders: false })).toMatchObject({
      target: 'trace',
      quietSeconds: 60,
      filter: { names: [], sampleRate: undefined },
    });
    const span = toEvaluatorInput({ ...judge, quietSeconds: '60' }, { editing: false, keepHeaders: false });
    expect(span).not.toHaveProperty('quietSeconds');
    expect(span.filter).toEqual({ spanTypes: ['LLM'], names: [], sampleRate: undefined });
  });
});
