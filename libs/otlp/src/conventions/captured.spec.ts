import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type SpanDelta, type TraceDelta, foldFacts } from '@app/domain';
import { otlpToFacts } from '../otlp-to-facts';
import { ENVELOPE } from '../testing/otlp-builders';

/** Exports captured from the real libraries, each wrapping one `openai` call (testing/captured/README.md). */
interface Captured {
  libraries: Record<string, string>;
  requests: { path: string; body: unknown }[];
}

const captured = (name: string): Captured => JSON.parse(readFileSync(resolve(__dirname, '../testing/captured', `${name}.json`), 'utf8'));

function convert(name: string): { spans: SpanDelta[]; traces: TraceDelta[] } {
  const traceExports = captured(name).requests.filter((r) => r.path.endsWith('/v1/traces'));
  return foldFacts(traceExports.map((r) => otlpToFacts(r.body as never, ENVELOPE)));
}

const QUESTION = 'What is the capital of France?';
const ANSWER = 'The capital of France is Paris.';
const text = (value: unknown): string => JSON.stringify(value) ?? '';

describe('captured exports of the real libraries', () => {
  // The LLM span each library makes for the one chat call; the answer of 23 prompt and 7 completion tokens.
  it.each([
    { name: 'openinference-instrumentation-openai', span: 'OpenAI Chat Completions', model: 'gpt-4o-mini-2024-07-18' },
    { name: 'traceloop-instrumentation-openai', span: 'chat gpt-4o-mini', model: 'gpt-4o-mini' },
    { name: 'vercel-ai', span: 'ai.generateText.doGenerate', model: 'gpt-4o-mini' },
    { name: 'langfuse-tracing', span: 'chat gpt-4o-mini', model: 'gpt-4o-mini' },
    { name: 'langfuse-openai', span: 'OpenAI.chat', model: 'gpt-4o-mini-2024-07-18' },
  ])('$name: the LLM span has its model, tokens, question and answer', ({ name, span, model }) => {
    const llm = convert(name).spans.find((s) => s.values.name === span);
    expect(llm?.values).toMatchObject({ type: 'LLM', model, promptTokens: 23, completionTokens: 7, totalTokens: 30 });
    expect(text(llm?.values.input)).toContain(QUESTION);
    expect(text(llm?.values.output)).toContain(ANSWER);
  });

  it('OpenTelemetry instrumentation-openai: model and tokens on the span; its content comes as log records', () => {
    const [llm] = convert('otel-instrumentation-openai').spans;
    expect(llm.values).toMatchObject({
      type: 'LLM',
      model: 'gpt-4o-mini',
      promptTokens: 23,
      completionTokens: 7,
      modelParameters: { temperature: 0 },
    });
    expect(llm.values.input).toBeUndefined();
  });

  it('OpenInference: the messages, not the request JSON, are the input and output', () => {
    const [llm] = convert('openinference-instrumentation-openai').spans;
    expect(llm.values.input).toEqual([
      { role: 'system', content: 'You answer geography questions.' },
      { role: 'user', content: QUESTION },
    ]);
    expect(llm.values.output).toEqual([{ role: 'assistant', content: ANSWER }]);
    expect(llm.values.modelParameters).toEqual({ model: 'gpt-4o-mini', temperature: 0 });
  });

  it('Traceloop: the current GenAI messages stay the array the library sent', () => {
    const [llm] = convert('traceloop-instrumentation-openai').spans;
    expect(llm.values.input).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'You answer geography questions.' }] },
      { role: 'user', parts: [{ type: 'text', content: QUESTION }] },
    ]);
    expect(llm.values.output).toEqual([{ role: 'assistant', finish_reason: 'stop', parts: [{ type: 'text', content: ANSWER }] }]);
  });

  it('Vercel AI SDK: the call around the provider call is a CHAIN with its prompt and text, and no second count of tokens', () => {
    const { spans } = convert('vercel-ai');
    const outer = spans.find((s) => s.values.name === 'ai.generateText');
    expect(outer?.values).toMatchObject({ type: 'CHAIN', input: { prompt: QUESTION }, output: ANSWER });
    expect(outer?.values).not.toHaveProperty('promptTokens');
    expect(outer?.values).not.toHaveProperty('model');
  });

  it.each(['langfuse-tracing', 'langfuse-openai'])(
    "%s: the trace gets user, session, tags and metadata, its root span's name (SPEC 2.1); the root span stays CUSTOM",
    (name) => {
      const { spans, traces } = convert(name);
      expect(traces).toHaveLength(1);
      expect(traces[0].values).toMatchObject({
        name: 'answer-question',
        userId: 'user-42',
        sessionId: 'session-7',
        tags: ['service:unknown_service:node', 'geo', 'capital'],
        metadata: { feature: 'quiz' },
      });
      const root = spans.find((s) => s.values.name === 'answer-question');
      expect(root?.values).toMatchObject({ type: 'CUSTOM', input: { question: QUESTION }, output: { answer: ANSWER } });
    },
  );

  it('Langfuse: a cost the SDK sends is the span cost', () => {
    const llm = convert('langfuse-tracing').spans.find((s) => s.values.type === 'LLM');
    expect(llm?.values.cost).toBe(0.0000077);
  });
});
