import fc from 'fast-check';
import { toConversation } from './to-conversation';
import type { ConversationSide, ConversationView } from './types';

const side = fc.constantFrom<ConversationSide>('input', 'output');

/** Keys and values of every format, so arbitrary values reach deep into the readers, not only their first check. */
const KEYS = [
  'role',
  'content',
  'contents',
  'message_content',
  'parts',
  'type',
  'text',
  'tool_calls',
  'tool_call',
  'function',
  'function_call',
  'name',
  'arguments',
  'args',
  'input',
  'output',
  'id',
  'call_id',
  'tool_call_id',
  'tool_use_id',
  'messages',
  'system',
  'prompt',
  'choices',
  'message',
  'candidates',
  'systemInstruction',
  'inlineData',
  'functionCall',
  'functionResponse',
  'response',
  'lc',
  'kwargs',
  'data',
  'toolCallId',
  'toolName',
  'image_url',
  'url',
  'source',
  'instructions',
  'object',
  'uri',
  'modality',
  'refusal',
  'additional_kwargs',
  'model',
  '__proto__',
  'constructor',
];
const WORDS = [
  'user',
  'assistant',
  'system',
  'tool',
  'model',
  'human',
  'ai',
  'text',
  'image',
  'image_url',
  'tool_use',
  'tool_result',
  'tool_call',
  'tool_call_response',
  'tool-call',
  'tool-result',
  'function_call',
  'function_call_output',
  'web_search_call',
  'message',
  'response',
  'constructor',
  'input_text',
  'output_text',
  'uri',
  'blob',
  'AIMessage',
  'HumanMessage',
  'ToolMessage',
  'ChatMessage',
  'data:image/png;base64,AA',
  '',
];
const { shaped } = fc.letrec<{ shaped: unknown }>((tie) => ({
  shaped: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    fc.constantFrom(...WORDS),
    fc.string(),
    fc.constantFrom(1, 0, null, true),
    fc.array(tie('shaped'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('shaped'), { maxKeys: 5 }),
    fc.constant(['langchain_core', 'messages', 'AIMessage']),
  ),
}));

/** Every text part of a view, empty ones aside (an empty content is no text to keep). */
const textsOf = (view: ConversationView): string[] =>
  view.kind === 'json' ? [] : view.turns.flatMap((t) => t.parts.flatMap((p) => (p.kind === 'text' && p.text !== '' ? [p.text] : [])));

/** A conversation to encode: roles and the texts of each turn. */
const script = fc.array(
  fc.record({
    role: fc.constantFrom('system', 'user', 'assistant'),
    texts: fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 3 }),
  }),
  {
    minLength: 1,
    maxLength: 4,
  },
);
type Script = { role: string; texts: string[] }[];

/** The script in each format's shape; a tool call in some keeps the shape that format's alone. */
const ENCODERS: Record<string, (s: Script) => unknown> = {
  'openai-chat': (s) =>
    s.map(({ role, texts }) => ({ role, content: texts.length === 1 ? texts[0] : texts.map((text) => ({ type: 'text', text })) })),
  'openai-responses': (s) => ({
    model: 'm',
    input: s.map(({ role, texts }) => ({ type: 'message', role, content: texts.map((text) => ({ type: 'input_text', text })) })),
  }),
  anthropic: (s) => ({
    system: 'sys',
    messages: s.map(({ role, texts }) => ({
      role,
      content: [...texts.map((text) => ({ type: 'text', text })), { type: 'tool_use', id: 't', name: 'n', input: {} }],
    })),
  }),
  gemini: (s) => ({
    contents: s.map(({ role, texts }) => ({ role: role === 'assistant' ? 'model' : role, parts: texts.map((text) => ({ text })) })),
  }),
  'otel-genai': (s) => s.map(({ role, texts }) => ({ role, parts: texts.map((content) => ({ type: 'text', content })) })),
  'vercel-ai': (s) =>
    s.map(({ role, texts }) => ({
      role,
      content: [...texts.map((text) => ({ type: 'text', text })), { type: 'tool-call', toolCallId: 'c', toolName: 'n', input: {} }],
    })),
  langchain: (s) =>
    s.map(({ role, texts }) => ({
      lc: 1,
      type: 'constructor',
      id: ['langchain_core', 'messages', role === 'user' ? 'HumanMessage' : role === 'system' ? 'SystemMessage' : 'AIMessage'],
      kwargs: { content: texts.join('') },
    })),
};
const expectedTexts: Record<string, (s: Script) => string[]> = {
  langchain: (s) => s.map((t) => t.texts.join('')),
  anthropic: (s) => ['sys', ...s.flatMap((t) => t.texts)],
};

describe('toConversation on arbitrary values', () => {
  it('never throws, on any value at all', () => {
    fc.assert(
      fc.property(
        fc.anything({ withNullPrototype: true, withBoxedValues: true, withMap: true, withSet: true, withSparseArray: true }),
        side,
        (value, s) => {
          toConversation(value, s);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never throws on values shaped like the formats, and whatever it does not recognize is the value itself as JSON', () => {
    fc.assert(
      fc.property(shaped, side, (value, s) => {
        const view = toConversation(value, s);
        if (view.kind === 'json') expect(view.value).toBe(value);
        else expect(view.turns.length).toBeGreaterThan(0);
      }),
      { numRuns: 5000 },
    );
  });

  it("JSON that has none of the formats' keys falls back to JSON", () => {
    const foreign = fc
      .jsonValue()
      .filter(
        (v) =>
          typeof v !== 'string' &&
          !JSON.stringify(v).match(
            /"(role|messages|prompt|contents|candidates|choices|input|output|content|parts|message|lc|type|toolCallId)"/,
          ),
      );
    fc.assert(
      fc.property(foreign, side, (value, s) => {
        expect(toConversation(value, s)).toEqual({ kind: 'json', value });
      }),
    );
  });

  it.each(Object.keys(ENCODERS))('a %s conversation keeps every text it holds, in order', (format) => {
    fc.assert(
      fc.property(script, side, (s, sd) => {
        const view = toConversation(ENCODERS[format](s), sd);
        expect(view.kind === 'conversation' && view.format).toBe(format);
        expect(textsOf(view)).toEqual((expectedTexts[format]?.(s) ?? s.flatMap((t) => t.texts)).filter((t) => t !== ''));
      }),
    );
  });
});
