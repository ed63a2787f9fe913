import { BUILT_IN_PRICES } from '../pricing/built-in-prices';
import { PriceTable } from '../pricing/price-table';
import type { JudgeSettings } from './evaluator';
import {
  type JudgeInput,
  chatCompletionsUrl,
  compileJudgePrompt,
  judgeCallRecord,
  judgeOutcomeOf,
  judgeRequestBody,
  readJudgeReply,
  templateUsesOutput,
} from './judge';

const target = (over: Partial<JudgeInput> = {}): JudgeInput => ({
  input: { question: 'refund?' },
  output: 'Yes, within {{input}} 30 days.',
  metadata: { user: 'u1' },
  expectedOutput: null,
  ...over,
});

const judge = (over: Partial<JudgeSettings> = {}): JudgeSettings => ({
  connectionId: '00000000-0000-4000-8000-000000000000',
  model: 'gpt-4.1-mini',
  prompt: { name: 'judge', label: null },
  scoreType: 'numeric',
  categories: [],
  ...over,
});

/** A chat completion whose first choice says `message`. */
const reply = (message: object, extra: object = {}) =>
  JSON.stringify({
    model: 'gpt-4.1-mini-2025-04-14',
    choices: [{ index: 0, message }],
    usage: { prompt_tokens: 120, completion_tokens: 30 },
    ...extra,
  });

describe(compileJudgePrompt.name, () => {
  it('fills the four variables in a chat template, text as it is and other JSON as its JSON, in one pass', () => {
    const messages = compileJudgePrompt(
      [
        { role: 'system', content: 'You grade answers. Meta: {{ metadata }}' },
        { role: 'user', content: 'Q: {{input}}\nA: {{output}}\nExpected: [{{expectedOutput}}] {{other}}' },
      ],
      target(),
    );
    expect(messages).toEqual([
      { role: 'system', content: 'You grade answers. Meta: {"user":"u1"}' },
      // The output's own "{{input}}" stays as written; an unknown variable is left alone; no dataset, no expected output.
      { role: 'user', content: 'Q: {"question":"refund?"}\nA: Yes, within {{input}} 30 days.\nExpected: [] {{other}}' },
    ]);
  });

  it('makes a text template one user message', () => {
    expect(compileJudgePrompt('Rate {{output}}', target({ output: 'ok' }))).toEqual([{ role: 'user', content: 'Rate ok' }]);
  });

  it("fills {{expectedOutput}} with a linked dataset item's expected output", () => {
    expect(compileJudgePrompt('{{output}} vs {{expectedOutput}}', target({ output: 'Lima', expectedOutput: { capital: 'Lima' } }))).toEqual(
      [{ role: 'user', content: 'Lima vs {"capital":"Lima"}' }],
    );
  });

  it('tells a template that shows the output from one that does not', () => {
    expect(templateUsesOutput('Rate {{ output }}')).toBe(true);
    expect(templateUsesOutput([{ role: 'user', content: 'Rate {{input}}' }])).toBe(false);
  });
});

describe(judgeRequestBody.name, () => {
  it('asks the model for a structured answer of the score type, with reasoning', () => {
    const body = judgeRequestBody(judge({ scoreType: 'categorical', categories: ['good', 'bad'] }), [{ role: 'user', content: 'x' }]);
    expect(body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'x' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'judgement',
          strict: true,
          schema: {
            type: 'object',
            properties: {
              score: { type: 'string', enum: ['good', 'bad'], description: expect.any(String) },
              reasoning: { type: 'string', description: expect.any(String) },
            },
            required: ['score', 'reasoning'],
            additionalProperties: false,
          },
        },
      },
    });
  });

  it('posts to {baseUrl}/chat/completions with or without a trailing slash', () => {
    expect(chatCompletionsUrl('https://api.example.com/v1/')).toBe('https://api.example.com/v1/chat/completions');
    expect(chatCompletionsUrl('https://api.example.com/v1')).toBe('https://api.example.com/v1/chat/completions');
  });
});

describe(readJudgeReply.name, () => {
  const usage = { model: 'gpt-4.1-mini-2025-04-14', promptTokens: 120, completionTokens: 30 };

  it('reads the answer from the content as JSON, also inside a code fence', () => {
    expect(readJudgeReply(reply({ role: 'assistant', content: '{"score": 0.8, "reasoning": "mostly right"}' }), judge())).toEqual({
      ok: true,
      score: { dataType: 'NUMERIC', value: 0.8, pass: null, reasoning: 'mostly right' },
      usage,
    });
    const fenced = readJudgeReply(reply({ content: '```json\n{"score": 1, "reasoning": "r"}\n```' }), judge());
    expect(fenced).toMatchObject({ ok: true, score: { value: 1 } });
  });

  it('reads the answer from a tool call of the same shape', () => {
    const call = {
      content: null,
      tool_calls: [{ type: 'function', function: { name: 'judgement', arguments: '{"score": true, "reasoning": "ok"}' } }],
    };
    expect(readJudgeReply(reply(call), judge({ scoreType: 'boolean' }))).toEqual({
      ok: true,
      score: { dataType: 'NUMERIC', value: 1, pass: true, reasoning: 'ok' },
      usage,
    });
  });

  it('reads a categorical score as its category', () => {
    const read = readJudgeReply(
      reply({ content: '{"score": "bad", "reasoning": "wrong"}' }),
      judge({ scoreType: 'categorical', categories: ['good', 'bad'] }),
    );
    expect(read).toMatchObject({ ok: true, score: { dataType: 'CATEGORICAL', value: 'bad', pass: null } });
  });

  it.each([
    ['a reply that is not JSON', 'upstream proxy error', /the reply is not JSON/],
    ['no choices', JSON.stringify({ choices: [] }), /no choices\[0\]\.message/],
    ['content that is not JSON', reply({ content: 'I think it is good.' }), /the answer is not JSON: I think it is good/],
    [
      'tool arguments that are not JSON',
      reply({ tool_calls: [{ function: { arguments: '{score' } }] }),
      /tool call's arguments are not JSON/,
    ],
    ['a refusal', reply({ content: null, refusal: 'I cannot help' }), /the model refused: I cannot help/],
    ['a score out of range', reply({ content: '{"score": 7, "reasoning": "r"}' }), /score 7 is out of range/],
    [
      'a score of the wrong type',
      reply({ content: '{"score": "high", "reasoning": "r"}' }),
      /score must be a number from 0 to 1, got "high"/,
    ],
    ['an answer that is not an object', reply({ content: '[0.5]' }), /not a JSON object with score and reasoning/],
  ])('finds %s unreadable, saying why', (_, body, error) => {
    const read = readJudgeReply(body, judge());
    expect(read.ok).toBe(false);
    expect(read.ok ? null : read.error).toMatch(error);
  });

  it('refuses a category the judge does not have', () => {
    const read = readJudgeReply(
      reply({ content: '{"score": "meh", "reasoning": "r"}' }),
      judge({ scoreType: 'categorical', categories: ['good', 'bad'] }),
    );
    expect(read).toMatchObject({ ok: false, error: 'score must be one of "good", "bad", got "meh"' });
  });
});

describe(judgeOutcomeOf.name, () => {
  it('fails a call that got no answer or an HTTP error, with no score', () => {
    expect(judgeOutcomeOf({ kind: 'network', message: 'ECONNREFUSED' }, 4, judge())).toMatchObject({
      ok: false,
      reason: 'call failed',
      error: 'judge call failed after 4 attempts: ECONNREFUSED',
    });
    expect(judgeOutcomeOf({ kind: 'answer', status: 401, body: 'bad key' }, 1, judge())).toMatchObject({
      ok: false,
      reason: 'call failed',
      error: 'judge answered HTTP 401 after 1 attempt: bad key',
    });
  });

  it('calls an unreadable 2xx reply so, and keeps what it used', () => {
    expect(judgeOutcomeOf({ kind: 'answer', status: 200, body: reply({ content: 'nope' }) }, 1, judge())).toMatchObject({
      ok: false,
      reason: 'judge reply unreadable',
      usage: { promptTokens: 120, completionTokens: 30 },
    });
  });
});

describe(judgeCallRecord.name, () => {
  const prices = new PriceTable(BUILT_IN_PRICES);

  it('prices the call by the built-in table for the model that answered', () => {
    const record = judgeCallRecord(
      { model: 'gpt-4.1-mini', promptTokens: 1_000_000, completionTokens: 1_000_000 },
      'x',
      Date.now(),
      prices,
    );
    expect(record).toEqual({ model: 'gpt-4.1-mini', promptTokens: 1_000_000, completionTokens: 1_000_000, cost: expect.any(Number) });
    expect(record.cost).toBeCloseTo(0.4 + 1.6, 6);
  });

  it('has no cost for a model without a price, or without token counts', () => {
    expect(judgeCallRecord({ model: null, promptTokens: 5, completionTokens: 5 }, 'my-local-model', Date.now(), prices)).toEqual({
      model: 'my-local-model',
      promptTokens: 5,
      completionTokens: 5,
      cost: null,
    });
    expect(judgeCallRecord({ model: 'gpt-4.1-mini', promptTokens: null, completionTokens: null }, 'x', Date.now(), prices).cost).toBeNull();
  });
});
