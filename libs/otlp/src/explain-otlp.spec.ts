import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { explainOtlpRequest } from './explain-otlp';

const captured = (name: string) =>
  JSON.parse(readFileSync(resolve(__dirname, 'testing/captured', `${name}.json`), 'utf8')).requests[0].body;

describe(explainOtlpRequest.name, () => {
  it('names, per field, the value, the attributes it came from and the rule; and the attributes no rule used', () => {
    const [span] = explainOtlpRequest(captured('openinference-instrumentation-openai')).spans;
    // SPEC 2.3 row 2 decides before the explicit kind, on the first llm.* key.
    expect(span.span.type).toEqual({ value: 'LLM', from: ['llm.model_name'], rule: 'SPEC 2.3 row 2' });
    expect(span.span.model).toEqual({ value: 'gpt-4o-mini-2024-07-18', from: ['llm.model_name'], rule: 'OpenInference' });
    expect(span.span.promptTokens).toEqual({ value: 23, from: ['llm.token_count.prompt'], rule: 'OpenInference' });
    expect(span.span.totalTokens).toEqual({
      value: 30,
      from: ['llm.token_count.prompt', 'llm.token_count.completion'],
      rule: 'prompt + completion tokens',
    });
    expect(span.span.input.from).toEqual([
      'llm.input_messages.0.message.content',
      'llm.input_messages.0.message.role',
      'llm.input_messages.1.message.content',
      'llm.input_messages.1.message.role',
    ]);
    expect(span.overridden).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'input', from: ['input.value'], rule: 'OpenInference' })]),
    );
    expect(span.span.operation).toEqual({ value: 'chat', from: ['openinference.span.kind'], rule: 'OpenInference' });
    expect(span.unused).toEqual(expect.arrayContaining(['input.mime_type', 'llm.token_count.total', 'llm.finish_reason']));
    expect(span.unused).not.toContain('openinference.span.kind');
    expect(span.trace.name).toEqual({ value: 'OpenAI Chat Completions', from: ['span name'], rule: 'SPEC 2.1 root span' });
    expect(span.trace.input).toEqual({
      value: span.span.input.value,
      from: span.span.input.from,
      rule: 'root span, unless the trace states its own',
    });
  });
});
