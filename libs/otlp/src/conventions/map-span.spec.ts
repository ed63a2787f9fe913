import type { JsonObject } from '@app/domain';
import { type Mapped, mapSpan, spanTypeOf } from './map-span';
import type { EventView, SpanView } from './readers';

const view = (attributes: JsonObject, events: EventView[] = [], resource: JsonObject = {}): SpanView => ({ attributes, events, resource });
const valuesOf = (attributes: JsonObject, events: EventView[] = []) => {
  const { span, trace } = mapSpan(view(attributes, events));
  const entries: [string, Mapped][] = [...Object.entries(span), ...Object.entries(trace).map(([k, v]): [string, Mapped] => [`trace.${k}`, v])];
  return Object.fromEntries(entries.map(([k, v]) => [k, v.value]));
};

describe(spanTypeOf.name, () => {
  it.each([
    ['platform.span.type wins over everything (row 1)', { 'platform.span.type': 'agent', 'openinference.span.kind': 'TOOL', 'gen_ai.system': 'x' }, 'AGENT', 'SPEC 2.3 row 1'],
    ['any gen_ai. or llm. key is LLM before a convention kind (row 2)', { 'openinference.span.kind': 'CHAIN', 'llm.system': 'openai' }, 'LLM', 'SPEC 2.3 row 2'],
    ['gen_ai.operation.name is itself a gen_ai. key (row 2)', { 'gen_ai.operation.name': 'execute_tool' }, 'LLM', 'SPEC 2.3 row 2'],
    ['tool.name before a convention kind (row 3)', { 'tool.name': 't', 'langfuse.observation.type': 'agent' }, 'TOOL', 'SPEC 2.3 row 3'],
    ['db.statement (row 4)', { 'db.statement': 'select 1' }, 'RETRIEVAL', 'SPEC 2.3 row 4'],
    ['OpenInference RETRIEVER is RETRIEVAL', { 'openinference.span.kind': 'RETRIEVER' }, 'RETRIEVAL', 'OpenInference kind'],
    ['OpenInference EMBEDDING', { 'openinference.span.kind': 'embedding' }, 'EMBEDDING', 'OpenInference kind'],
    ['Traceloop workflow is CHAIN', { 'traceloop.span.kind': 'workflow' }, 'CHAIN', 'OpenLLMetry kind'],
    ['Vercel ai.toolCall is TOOL', { 'ai.operationId': 'ai.toolCall' }, 'TOOL', 'Vercel AI SDK kind'],
    ['Vercel ai.generateText is CHAIN', { 'ai.operationId': 'ai.generateText' }, 'CHAIN', 'Vercel AI SDK kind'],
    ['Langfuse generation is LLM', { 'langfuse.observation.type': 'generation' }, 'LLM', 'Langfuse kind'],
    ['Langfuse span states no type', { 'langfuse.observation.type': 'span' }, 'CUSTOM', 'SPEC 2.3 row 5'],
    ['an unknown kind value states no type', { 'openinference.span.kind': 'SOMETHING' }, 'CUSTOM', 'SPEC 2.3 row 5'],
    ['OpenInference before Langfuse', { 'openinference.span.kind': 'AGENT', 'langfuse.observation.type': 'tool' }, 'AGENT', 'OpenInference kind'],
  ])('%s', (_, attributes, type, rule) => {
    expect(spanTypeOf(view(attributes))).toMatchObject({ value: type, rule });
  });
});

describe(mapSpan.name, () => {
  it('SPEC 2.2 attributes win over every convention, and the losers are listed as overridden', () => {
    const mapping = mapSpan(view({ 'gen_ai.request.model': 'a', 'llm.model_name': 'b', 'langfuse.observation.model.name': 'c', 'gen_ai.prompt': 'p', 'gen_ai.input.messages': '[{"role":"user"}]' }));
    expect(mapping.span.model).toEqual({ value: 'a', from: ['gen_ai.request.model'], rule: 'SPEC 2.2' });
    expect(mapping.span.input).toEqual({ value: 'p', from: ['gen_ai.prompt'], rule: 'SPEC 2.2' });
    expect(mapping.overridden).toEqual(
      expect.arrayContaining([
        { field: 'model', value: 'b', from: ['llm.model_name'], rule: 'OpenInference' },
        { field: 'model', value: 'c', from: ['langfuse.observation.model.name'], rule: 'Langfuse' },
        { field: 'input', value: [{ role: 'user' }], from: ['gen_ai.input.messages'], rule: 'OTel GenAI' },
      ]),
    );
  });

  it('the current GenAI messages win over the other conventions, with the system instructions first', () => {
    expect(
      valuesOf({
        'gen_ai.system_instructions': '[{"type":"text","content":"Be brief."}]',
        'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]',
        'llm.input_messages.0.message.content': 'other',
      }).input,
    ).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Hi' }] },
    ]);
  });

  it('content from gen_ai.* span events: per-message events in order, choices as the output', () => {
    const events: EventView[] = [
      { name: 'gen_ai.system.message', attributes: { content: 'Be brief.', 'gen_ai.system': 'openai' } },
      { name: 'gen_ai.user.message', attributes: { content: 'Hi' } },
      { name: 'gen_ai.choice', attributes: { index: 0, finish_reason: 'stop', message: { content: 'Hello' } } },
      { name: 'exception', attributes: { 'exception.message': 'no' } },
    ];
    expect(valuesOf({}, events)).toEqual({
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      output: [{ index: 0, finish_reason: 'stop', message: { content: 'Hello' } }],
    });
  });

  it('the 1.37 details event and the ≤ 1.26 content events', () => {
    expect(valuesOf({}, [{ name: 'gen_ai.client.inference.operation.details', attributes: { 'gen_ai.input.messages': [{ role: 'user' }], 'gen_ai.output.messages': '[{"role":"assistant"}]' } }])).toEqual({
      input: [{ role: 'user' }],
      output: [{ role: 'assistant' }],
    });
    expect(valuesOf({}, [{ name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': 'Q' } }, { name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': 'A' } }])).toEqual({ input: 'Q', output: 'A' });
  });

  it('OpenLLMetry flattened prompts and completions become message lists in index order', () => {
    expect(
      valuesOf({
        'gen_ai.prompt.1.role': 'user',
        'gen_ai.prompt.1.content': 'Hi',
        'gen_ai.prompt.0.role': 'system',
        'gen_ai.prompt.0.content': 'Be brief.',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'Hello',
        'traceloop.association.properties.user_id': 'u1',
        'traceloop.association.properties.tier': 'gold',
      }),
    ).toEqual({
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      output: [{ role: 'assistant', content: 'Hello' }],
      'trace.userId': 'u1',
      'trace.metadata': { user_id: 'u1', tier: 'gold' },
    });
  });

  it('JSON text that is no object or array stays the text that was sent', () => {
    expect(valuesOf({ 'langfuse.observation.input': '42', 'langfuse.observation.output': '{"a":' })).toEqual({ input: '42', output: '{"a":' });
  });

  it('Vercel usage and model count on provider calls only', () => {
    const usage = { 'ai.model.id': 'm', 'ai.usage.inputTokens': 3, 'ai.usage.outputTokens': 4 };
    expect(valuesOf({ ...usage, 'ai.operationId': 'ai.streamText.doStream' })).toEqual({ model: 'm', promptTokens: 3, completionTokens: 4 });
    expect(valuesOf({ ...usage, 'ai.operationId': 'ai.streamText' })).toEqual({});
  });

  it('lists the attributes no value was read from', () => {
    expect(mapSpan(view({ 'gen_ai.system': 'openai', 'gen_ai.request.model': 'm', 'server.port': 443 })).unused).toEqual(['server.port']);
  });
});
