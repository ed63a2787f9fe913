import captured from './fixtures/captured.json';
import vendorDocs from './fixtures/vendor-docs.json';
import { toConversation } from './to-conversation';
import type { ConversationPart, ConversationSide, ConversationView } from './types';

const short = (text: string): string => (text.length > 48 ? `${text.slice(0, 45)}…` : text);
const compact = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function partLine(part: ConversationPart): string {
  switch (part.kind) {
    case 'text':
      return JSON.stringify(short(part.text));
    case 'image':
      return `[image ${part.url ?? ''}${part.url && part.mediaType ? ' ' : ''}${part.mediaType ?? ''}]`;
    case 'tool-call':
      return `call ${part.name}#${part.id ?? '?'} ${short(compact(part.arguments))}`;
    case 'tool-result':
      return `result ${part.name ?? ''}#${part.id ?? '?'} ${short(compact(part.content))}`;
    case 'json':
      return 'json';
  }
}

/** The view as one line per turn, `format` first: what a reader of the test compares with the payload. */
function summary(view: ConversationView): string[] {
  if (view.kind === 'json') return ['json'];
  return [view.format, ...view.turns.map((t) => `${t.role}${t.name ? ` (${t.name})` : ''}: ${t.parts.map(partLine).join(' | ')}`)];
}

type Payloads = Record<string, unknown>;
const capturedSide = (name: string, side: ConversationSide): unknown =>
  ((captured as Payloads)[name] as Record<ConversationSide, unknown>)[side];
const doc = (name: string): unknown => (vendorDocs as Payloads)[name];

describe(toConversation.name, () => {
  it.each<[string, ConversationSide, string[]]>([
    [
      'langfuse-openai OpenAI.chat',
      'input',
      ['openai-chat', 'system: "You answer geography questions."', 'user: "What is the capital of France?"'],
    ],
    ['langfuse-openai OpenAI.chat', 'output', ['openai-chat', 'assistant: "The capital of France is Paris."']],
    [
      'openinference-instrumentation-openai OpenAI Chat Completions',
      'input',
      ['openai-chat', 'system: "You answer geography questions."', 'user: "What is the capital of France?"'],
    ],
    [
      'openinference-instrumentation-openai OpenAI Chat Completions',
      'output',
      ['openai-chat', 'assistant: "The capital of France is Paris."'],
    ],
    [
      'traceloop-instrumentation-openai chat gpt-4o-mini',
      'input',
      ['otel-genai', 'system: "You answer geography questions."', 'user: "What is the capital of France?"'],
    ],
    ['traceloop-instrumentation-openai chat gpt-4o-mini', 'output', ['otel-genai', 'assistant: "The capital of France is Paris."']],
    ['vercel-ai ai.generateText.doGenerate', 'input', ['openai-chat', 'user: "What is the capital of France?"']],
    ['vercel-ai ai.generateText.doGenerate', 'output', ['text', 'assistant: "The capital of France is Paris."']],
    ['vercel-ai ai.generateText', 'input', ['text', 'user: "What is the capital of France?"']],
    [
      'vercel-aisdk-2025-11-17 tool call',
      'output',
      ['vercel-ai', 'assistant: call getWeather#call_DgKARp7a7IhJPDczfifMp6Ra {"location":"San Francisco"}'],
    ],
    [
      'openai-agents-2025-09-30 tool call',
      'output',
      ['openai-chat', 'assistant: call get_weather#call_Kud0j0DxWSmLzv9W5m6qVqXn {"city":"Tokyo"}'],
    ],
    [
      'openai-agents-2025-09-30 after the tool',
      'input',
      [
        'openai-chat',
        'system: "You are a helpful agent."',
        `user: "What's the weather in Tokyo?"`,
        'assistant: call get_weather#call_Kud0j0DxWSmLzv9W5m6qVqXn {"city":"Tokyo"}',
        'tool: result #call_Kud0j0DxWSmLzv9W5m6qVqXn The weather in Tokyo is sunny.',
      ],
    ],
    ['openai-agents-2025-09-30 after the tool', 'output', ['openai-chat', 'assistant: "The weather in Tokyo is currently sunny. If y…"']],
    [
      'pydantic-ai-tools-2025-12-04 tool calls',
      'output',
      [
        'otel-genai',
        'assistant: call get_pun_suggestion#call_X0OSgjUukT5inyEQvuZQnHrk {"topic":"programming"} | call get_dad_joke_suggestion#call_WxZcCvSDhGT4RJHlcU01k10x {"topic":"programming"} | call get_one_liner_suggestion#call_aRaObiWKKt6GzgDkkUl3bu1Q {"topic":"programming"}',
      ],
    ],
    ['google-adk-2025-08-28 agent run', 'output', ['gemini', 'assistant: "Hello Langfuse 👋!\\n"']],
    [
      'google-adk-2025-08-28 model call',
      'input',
      [
        'openai-chat',
        'system: "Always greet using the say_hello tool.\\n\\nYou a…"',
        'user: "hi"',
        'assistant: call say_hello#? null',
        'tool: result say_hello#? {"greeting": "Hello Langfuse 👋"}',
      ],
    ],
    ['langgraph-js-2025-10-30 model node', 'input', ['langchain', `user: "What's the weather in San Francisco?"`]],
    [
      'langgraph-js-2025-10-30 model node',
      'output',
      ['langchain', 'assistant (model): call get_weather#call_VEZJgIQLgzcb80IIyQJm7JCi {"city":"San Francisco"}'],
    ],
    [
      'langgraph-js-2025-10-30 tools node',
      'output',
      ['langchain', `tool: result get_weather#call_VEZJgIQLgzcb80IIyQJm7JCi It's always sunny in San Francisco!`],
    ],
    [
      'langgraph-js-2025-10-30 LLM after the tool',
      'input',
      [
        'openai-chat',
        `user: "What's the weather in San Francisco?"`,
        'assistant: call get_weather#call_VEZJgIQLgzcb80IIyQJm7JCi {"city":"San Francisco"}',
        `get_weather: "It's always sunny in San Francisco!"`,
      ],
    ],
    ['crewai-2025-07-11 LLM', 'output', ['openai-chat', 'assistant: "I now can give a great answer  \\nFinal Answer:…"']],
  ])('captured %s (%s)', (name, side, expected) => {
    expect(summary(toConversation(capturedSide(name, side), side))).toEqual(expected);
  });

  it.each<[string, ConversationSide, string[]]>([
    [
      'openai-chat request with an image and a tool round trip',
      'input',
      [
        'openai-chat',
        'system: "You are a weather bot."',
        'user: "Weather where this photo was taken?" | [image https://example.com/paris.jpg] | [image image/png]',
        'assistant: call get_weather#call_1 {"city":"Paris"}',
        'tool: result #call_1 {"temperature":18}',
      ],
    ],
    ['openai-chat completion response', 'output', ['openai-chat', 'assistant: "Let me check." | call get_time#call_2 {}']],
    ['openai-chat choices from gen_ai.choice events', 'output', ['openai-chat', 'assistant: "Hello"']],
    [
      'openai-responses request',
      'input',
      [
        'openai-responses',
        'system: "Answer briefly."',
        'user: "What is in this image?" | [image https://example.com/cat.png]',
        'assistant: call lookup#call_9 {"q":"cat"}',
        'tool: result #call_9 a cat',
      ],
    ],
    ['openai-responses response', 'output', ['openai-responses', 'assistant: json', 'assistant: "It is a cat."']],
    [
      'anthropic request with a tool round trip',
      'input',
      [
        'anthropic',
        'system: "You are a weather bot."',
        'user: [image image/jpeg] | "Weather in Paris?"',
        'assistant: "Checking." | call get_weather#toolu_1 {"city":"Paris"}',
        'user: result #toolu_1 18 degrees',
      ],
    ],
    ['anthropic response', 'output', ['anthropic', 'assistant: "It is 18 degrees in Paris."']],
    [
      'gemini request',
      'input',
      [
        'gemini',
        'system: "You are a weather bot."',
        'user: "Weather in this city?" | [image image/png]',
        'assistant: call get_weather#? {"city":"Paris"}',
        'user: result get_weather#? {"temperature":18}',
      ],
    ],
    ['gemini response', 'output', ['gemini', 'assistant: "It is 18 degrees."']],
    ['otel-genai output with a tool call', 'output', ['otel-genai', 'assistant: "Let me look." | call search#call_3 {"q":"otel"}']],
    [
      'otel-genai input with a tool response and an image',
      'input',
      ['otel-genai', 'user: "Describe" | [image https://example.com/a.png image/png]', 'tool: result #call_3 found 3 pages'],
    ],
    [
      'vercel-ai prompt messages',
      'input',
      [
        'vercel-ai',
        'system: "You are a weather bot."',
        'user: "Weather in Paris?" | [image https://example.com/p.png]',
        'assistant: call getWeather#call_4 {"city":"Paris"}',
        'tool: result getWeather#call_4 {"type":"json","value":{"temperature":18}}',
      ],
    ],
    [
      'langchain message dicts',
      'input',
      [
        'langchain',
        'system: "Be brief."',
        'user: "Weather in Paris?"',
        'assistant: call get_weather#call_5 {"city":"Paris"}',
        'tool: result get_weather#call_5 18 degrees',
      ],
    ],
    ['langchain messages_to_dict', 'input', ['langchain', 'user: "Hi"', 'assistant: "Hello!"']],
  ])('documented %s (%s)', (name, side, expected) => {
    expect(summary(toConversation(doc(name), side))).toEqual(expected);
  });

  it('a bare string is the user turn on input and the assistant turn on output', () => {
    expect(summary(toConversation('Hi', 'input'))).toEqual(['text', 'user: "Hi"']);
    expect(summary(toConversation('Hi', 'output'))).toEqual(['text', 'assistant: "Hi"']);
  });

  it.each<[string, unknown]>([
    ['a tool input', { city: 'San Francisco' }],
    ['an agent input with a prompt beside other fields', { prompt: 'Hi', user_id: 'u1' }],
    ['a chain input', { input: 'summarize this' }],
    ['a message with a field the format lacks as content', { role: 'admin', permissions: ['all'] }],
    ['an empty list', []],
    ['a list of numbers', [1, 2]],
    ['null', null],
    ['a number', 42],
    ['messages of a content block no format knows', [{ role: 'user', content: [{ type: 'hologram', data: 'x' }] }]],
  ])('%s falls back to JSON', (_, value) => {
    expect(toConversation(value, 'input')).toEqual({ kind: 'json', value });
  });

  it.each<[string, ConversationSide, Record<string, unknown> | null]>([
    ['openai-chat request with an image and a tool round trip', 'input', { model: 'gpt-4o', temperature: 0 }],
    ['openai-chat completion response', 'output', { id: 'chatcmpl-1', object: 'chat.completion' }],
    ['openai-responses request', 'input', { model: 'gpt-4.1' }],
    ['anthropic request with a tool round trip', 'input', { model: 'claude-sonnet-4-5' }],
    ['gemini response', 'output', { usageMetadata: { totalTokenCount: 9 } }],
    ['anthropic response', 'output', null],
    ['gemini request', 'input', null],
  ])('keeps the other fields of the request or response (%s) beside the turns', (name, side, extra) => {
    expect(toConversation(doc(name), side)).toMatchObject({ kind: 'conversation', extra });
  });

  it('shows a Gemini inline part as an image only when its media type is an image', () => {
    const view = toConversation(
      {
        contents: [
          {
            role: 'user',
            parts: [{ inlineData: { mimeType: 'audio/wav', data: 'UklGR' } }, { inlineData: { mimeType: 'image/png', data: 'iVBO' } }],
          },
        ],
      },
      'input',
    );
    expect(summary(view)).toEqual(['gemini', 'user: json | [image image/png]']);
  });

  it('keeps a data URL image as its media type, never its bytes', () => {
    const view = toConversation(
      [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/webp;base64,AAAA' } }] }],
      'input',
    );
    expect(view).toEqual({
      kind: 'conversation',
      format: 'openai-chat',
      turns: [{ role: 'user', name: null, parts: [{ kind: 'image', url: null, mediaType: 'image/webp' }] }],
      extra: null,
    });
  });

  it('a message nested in messages without end is read to one level only', () => {
    let deep: unknown = { content: 'x' };
    for (let i = 0; i < 20_000; i++) deep = { message: deep };
    expect(toConversation([deep], 'output').kind).toBe('json');
  });
});
