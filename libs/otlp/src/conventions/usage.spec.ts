import { type JsonObject, costOf } from '@app/domain';
import { mapSpan } from './map-span';

const usageOf = (attributes: JsonObject) => {
  const found = mapSpan({ attributes, events: [], resource: {} }).span.usageDetails;
  return found && { value: found.value, from: found.from, rule: found.rule };
};

describe('usage by type, every convention', () => {
  it.each<[string, JsonObject, ReturnType<typeof usageOf>]>([
    [
      'OTel GenAI: cache read and write taken out of the input, reasoning out of the output',
      {
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 50,
        'gen_ai.usage.cache_read.input_tokens': 60,
        'gen_ai.usage.cache_creation.input_tokens': 10,
        'gen_ai.usage.reasoning.output_tokens': 20,
      },
      {
        value: { input: 30, output: 30, cached_input: 60, cache_write: 10, reasoning: 20 },
        from: [
          'gen_ai.usage.input_tokens',
          'gen_ai.usage.output_tokens',
          'gen_ai.usage.cache_read.input_tokens',
          'gen_ai.usage.cache_creation.input_tokens',
          'gen_ai.usage.reasoning.output_tokens',
        ],
        rule: 'OTel GenAI',
      },
    ],
    [
      'OTel GenAI: the older prompt/completion names',
      { 'gen_ai.usage.prompt_tokens': 7, 'gen_ai.usage.completion_tokens': 3 },
      { value: { input: 7, output: 3 }, from: ['gen_ai.usage.prompt_tokens', 'gen_ai.usage.completion_tokens'], rule: 'OTel GenAI' },
    ],
    [
      'OpenLLMetry: its own cache and reasoning names in the gen_ai.usage namespace',
      {
        'gen_ai.usage.prompt_tokens': 100,
        'gen_ai.usage.completion_tokens': 40,
        'gen_ai.usage.cache_read_input_tokens': 80,
        'gen_ai.usage.cache_creation_input_tokens': 5,
        'gen_ai.usage.reasoning_tokens': 25,
      },
      {
        value: { input: 15, output: 15, cached_input: 80, cache_write: 5, reasoning: 25 },
        from: [
          'gen_ai.usage.prompt_tokens',
          'gen_ai.usage.completion_tokens',
          'gen_ai.usage.cache_read_input_tokens',
          'gen_ai.usage.cache_creation_input_tokens',
          'gen_ai.usage.reasoning_tokens',
        ],
        rule: 'OTel GenAI',
      },
    ],
    [
      'OpenInference: prompt and completion details, audio as a named type',
      {
        'llm.token_count.prompt': 90,
        'llm.token_count.completion': 60,
        'llm.token_count.prompt_details.cache_read': 40,
        'llm.token_count.prompt_details.cache_write': 20,
        'llm.token_count.prompt_details.audio': 5,
        'llm.token_count.completion_details.reasoning': 30,
        'llm.token_count.completion_details.audio': 10,
      },
      {
        value: { input: 25, output: 20, cached_input: 40, cache_write: 20, input_audio: 5, reasoning: 30, output_audio: 10 },
        from: [
          'llm.token_count.prompt',
          'llm.token_count.completion',
          'llm.token_count.prompt_details.cache_read',
          'llm.token_count.prompt_details.cache_write',
          'llm.token_count.prompt_details.audio',
          'llm.token_count.completion_details.reasoning',
          'llm.token_count.completion_details.audio',
        ],
        rule: 'OpenInference',
      },
    ],
    [
      'Vercel AI SDK: cached input and reasoning on a provider call',
      {
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.usage.inputTokens': 50,
        'ai.usage.outputTokens': 30,
        'ai.usage.cachedInputTokens': 20,
        'ai.usage.reasoningTokens': 10,
      },
      {
        value: { input: 30, output: 20, cached_input: 20, reasoning: 10 },
        from: ['ai.usage.inputTokens', 'ai.usage.outputTokens', 'ai.usage.cachedInputTokens', 'ai.usage.reasoningTokens'],
        rule: 'Vercel AI SDK',
      },
    ],
    [
      'Vercel AI SDK: nothing on the call around the provider calls',
      { 'ai.operationId': 'ai.generateText', 'ai.usage.inputTokens': 50 },
      undefined,
    ],
    [
      'Langfuse: usage_details as its types, names taken to ours, total left out, other types kept',
      {
        'langfuse.observation.usage_details': JSON.stringify({
          input: 10,
          output: 5,
          input_cached_tokens: 4,
          output_reasoning_tokens: 2,
          cache_creation_input_tokens: 3,
          input_audio_tokens: 1,
          total: 25,
        }),
      },
      {
        value: { input: 10, output: 5, cached_input: 4, reasoning: 2, cache_write: 3, input_audio_tokens: 1 },
        from: ['langfuse.observation.usage_details'],
        rule: 'Langfuse',
      },
    ],
    [
      'a total smaller than its parts leaves 0, never a negative count',
      { 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.cache_read.input_tokens': 8 },
      {
        value: { cached_input: 8, input: 0 },
        from: ['gen_ai.usage.input_tokens', 'gen_ai.usage.cache_read.input_tokens'],
        rule: 'OTel GenAI',
      },
    ],
    ['no count, no usage', { 'gen_ai.usage.input_tokens': 'many', 'gen_ai.usage.cache_read.input_tokens': -1 }, undefined],
  ])('%s', (_, attributes, expected) => {
    expect(usageOf(attributes)).toEqual(expected);
  });

  it('keeps the prompt and completion counts as sent beside the types', () => {
    const { span } = mapSpan({
      attributes: { 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.cache_read.input_tokens': 60 },
      events: [],
      resource: {},
    });
    expect(span.promptTokens?.value).toBe(100);
  });
});

describe('cost of every convention’s usage keys, each type priced', () => {
  // USD per token: every type its own price, so a type left out or counted twice shows.
  const PRICES = {
    input: 1,
    output: 10,
    cached_input: 100,
    cache_write: 1_000,
    reasoning: 10_000,
    input_audio: 100_000,
    output_audio: 1_000_000,
  };
  const costOfSpan = (attributes: JsonObject) => {
    const usage = mapSpan({ attributes, events: [], resource: {} }).span.usageDetails?.value ?? {};
    return costOf(usage, PRICES);
  };

  it.each<[string, JsonObject, number]>([
    [
      'OTel GenAI',
      {
        'gen_ai.usage.input_tokens': 7,
        'gen_ai.usage.output_tokens': 3,
        'gen_ai.usage.cache_read.input_tokens': 2,
        'gen_ai.usage.cache_creation.input_tokens': 1,
        'gen_ai.usage.reasoning.output_tokens': 1,
      },
      4 + 2 * 10 + 2 * 100 + 1_000 + 10_000,
    ],
    [
      'OpenLLMetry',
      {
        'gen_ai.usage.prompt_tokens': 7,
        'gen_ai.usage.completion_tokens': 3,
        'gen_ai.usage.cache_read_input_tokens': 2,
        'gen_ai.usage.cache_creation_input_tokens': 1,
        'gen_ai.usage.reasoning_tokens': 1,
      },
      4 + 2 * 10 + 2 * 100 + 1_000 + 10_000,
    ],
    [
      'OpenInference',
      {
        'llm.token_count.prompt': 9,
        'llm.token_count.completion': 5,
        'llm.token_count.prompt_details.cache_read': 2,
        'llm.token_count.prompt_details.cache_write': 1,
        'llm.token_count.prompt_details.audio': 1,
        'llm.token_count.completion_details.reasoning': 2,
        'llm.token_count.completion_details.audio': 1,
      },
      5 + 2 * 10 + 2 * 100 + 1_000 + 2 * 10_000 + 100_000 + 1_000_000,
    ],
    [
      'Vercel AI SDK',
      {
        'ai.operationId': 'ai.streamText.doStream',
        'ai.usage.inputTokens': 7,
        'ai.usage.outputTokens': 3,
        'ai.usage.cachedInputTokens': 2,
        'ai.usage.reasoningTokens': 1,
      },
      5 + 2 * 10 + 2 * 100 + 10_000,
    ],
    [
      'Vercel AI SDK 4',
      { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.promptTokens': 7, 'ai.usage.completionTokens': 3 },
      7 + 3 * 10,
    ],
    [
      'Langfuse',
      {
        'langfuse.observation.usage_details': {
          input: 5,
          output: 2,
          cache_read_input_tokens: 2,
          input_cache_creation: 1,
          reasoning_tokens: 1,
          total: 11,
        },
      },
      5 + 2 * 10 + 2 * 100 + 1_000 + 10_000,
    ],
  ])('%s', (_, attributes, expected) => {
    const cost = costOfSpan(attributes);
    expect(cost.unpriced).toEqual([]);
    expect(cost.total).toBe(expected);
  });
});
