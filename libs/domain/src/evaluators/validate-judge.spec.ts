import { DomainError } from '../errors';
import { validateLlmConnectionInput } from './llm-connection';
import { checkPatchOfKind, validateEvaluatorInput } from './validate-evaluator';

const CREATE = { partial: false, requireHttps: false, refuseNonPublicHosts: false } as const;
const UPDATE = { ...CREATE, partial: true } as const;
const CONNECTION = '5b0a3c1e-2f4d-4a6b-8c9d-0e1f2a3b4c5d';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).message;
  }
  throw new Error('expected a validation error');
}

const judgeInput = (judge: object = {}, over: object = {}) => ({
  name: 'faithfulness',
  kind: 'llm-judge',
  judge: { connectionId: CONNECTION, model: 'gpt-4.1-mini', prompt: { name: 'judge/faithfulness' }, scoreType: 'numeric', ...judge },
  ...over,
});

describe('judge evaluators', () => {
  it('fill in their defaults: no URL, more time and retries than a webhook, the default prompt pick', () => {
    expect(validateEvaluatorInput(judgeInput(), CREATE)).toEqual({
      name: 'faithfulness',
      kind: 'llm-judge',
      url: null,
      judge: {
        connectionId: CONNECTION,
        model: 'gpt-4.1-mini',
        prompt: { name: 'judge/faithfulness', label: null },
        scoreType: 'numeric',
        categories: [],
      },
      headers: {},
      timeoutMs: 30_000,
      retries: 3,
      filter: { spanTypes: ['LLM'], names: [], sampleRate: 1, tags: [], environments: [] },
      enabled: true,
      target: 'span',
      quietSeconds: 30,
    });
  });

  it('judge a trace too, with its quiet window', () => {
    expect(validateEvaluatorInput(judgeInput({}, { target: 'trace', quietSeconds: 5 }), CREATE)).toMatchObject({
      kind: 'llm-judge',
      target: 'trace',
      quietSeconds: 5,
    });
  });

  it('keep webhooks the default kind', () => {
    expect(validateEvaluatorInput({ name: 'w', url: 'https://e.example.com/' }, CREATE)).toMatchObject({ kind: 'webhook', judge: null });
  });

  it.each([
    [
      'categories missing for a categorical score',
      judgeInput({ scoreType: 'categorical' }),
      /^judge\.categories: is required for a categorical score/,
    ],
    ['categories for a numeric score', judgeInput({ categories: ['a', 'b'] }), /^judge\.categories: is only for a categorical score/],
    ['a category given twice', judgeInput({ scoreType: 'categorical', categories: ['a', 'a'] }), /^judge\.categories\[1\]: is given twice/],
    ['an unknown score type', judgeInput({ scoreType: 'stars' }), /^judge\.scoreType: must be one of numeric, boolean, categorical/],
    ['a connection id that is not a UUID', judgeInput({ connectionId: 'openai' }), /^judge\.connectionId: /],
    ['no prompt', judgeInput({ prompt: undefined }), /^judge\.prompt: /],
    ['a bad prompt label', judgeInput({ prompt: { name: 'p', label: 'Prod!' } }), /^judge\.prompt\.label: /],
    ['no judge', { name: 'j', kind: 'llm-judge' }, /^judge: is required for kind llm-judge/],
    ['a URL on a judge', judgeInput({}, { url: 'https://e.example.com/' }), /^url: is only for kind webhook/],
    ['headers on a judge', judgeInput({}, { headers: { 'X-A': 'b' } }), /^headers: are only for kind webhook/],
    ['a judge on a webhook', { ...judgeInput(), kind: 'webhook', url: 'https://e.example.com/' }, /^judge: is only for kind llm-judge/],
    ['an unknown kind', { name: 'j', kind: 'python', url: 'https://e.example.com/' }, /^kind: must be one of webhook, llm-judge/],
  ])('refuse %s, naming the field', (_, input, message) => {
    expect(refusal(() => validateEvaluatorInput(input, CREATE))).toMatch(message);
  });

  it('never change kind on update, and take a new judge only on a judge', () => {
    expect(refusal(() => validateEvaluatorInput({ kind: 'webhook' }, UPDATE))).toMatch(/^kind: cannot be changed/);
    const patch = validateEvaluatorInput({ judge: judgeInput().judge }, UPDATE);
    expect(() => checkPatchOfKind('llm-judge', patch)).not.toThrow();
    expect(refusal(() => checkPatchOfKind('webhook', patch))).toMatch(/^judge: is only for kind llm-judge/);
    expect(refusal(() => checkPatchOfKind('llm-judge', validateEvaluatorInput({ url: 'https://e.example.com/' }, UPDATE)))).toMatch(
      /^url: is only for kind webhook/,
    );
  });
});

describe(validateLlmConnectionInput.name, () => {
  const input = { name: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-test-123' };

  it('takes a name, base URL, key and optional headers', () => {
    expect(validateLlmConnectionInput({ ...input, headers: { 'OpenAI-Organization': 'org-1' } }, CREATE)).toEqual({
      ...input,
      headers: { 'OpenAI-Organization': 'org-1' },
    });
    expect(validateLlmConnectionInput(input, CREATE).headers).toEqual({});
  });

  it.each([
    ['no API key', { name: 'a', baseUrl: 'https://x.example.com/' }, /^apiKey: is required/],
    ['a key with a line break', { ...input, apiKey: 'sk\r\nX-Evil: 1' }, /^apiKey: must be a non-empty string/],
    [
      'an Authorization header',
      { ...input, headers: { authorization: 'Bearer other' } },
      /^headers\.authorization: is set by the judge call itself/,
    ],
    ['a base URL with credentials', { ...input, baseUrl: 'https://u:p@x.example.com/' }, /^baseUrl: must not carry credentials/],
    ['an unknown field', { ...input, key: 'x' }, /unknown field "key"/],
  ])('refuses %s', (_, body, message) => {
    expect(refusal(() => validateLlmConnectionInput(body, CREATE))).toMatch(message);
  });

  it('applies the webhook URL rules of the deployment: HTTPS and public addresses in production', () => {
    const production = { partial: false, requireHttps: true, refuseNonPublicHosts: true } as const;
    expect(refusal(() => validateLlmConnectionInput({ ...input, baseUrl: 'http://api.example.com/v1' }, production))).toMatch(
      /^baseUrl: must be an https URL in production/,
    );
    expect(refusal(() => validateLlmConnectionInput({ ...input, baseUrl: 'https://169.254.169.254/v1' }, production))).toMatch(
      /^baseUrl: must not be a private, loopback/,
    );
  });

  it('changes only what an update gives', () => {
    expect(validateLlmConnectionInput({ apiKey: 'sk-new' }, { ...CREATE, partial: true })).toEqual({ apiKey: 'sk-new' });
    expect(refusal(() => validateLlmConnectionInput({}, { ...CREATE, partial: true }))).toMatch(/^nothing to change/);
  });
});
