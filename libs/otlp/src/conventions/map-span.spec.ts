import type { JsonObject } from '@app/domain';
import { type Mapped, mapSpan, spanTypeOf } from './map-span';
import type { EventView, SpanView } from './readers';

const view = (attributes: JsonObject, events: EventView[] = [], resource: JsonObject = {}): SpanView => ({ attributes, events, resource });
const valuesOf = (attributes: JsonObject, events: EventView[] = []) => {
  const { span, trace } = mapSpan(view(attributes, events));
  const entries: [string, Mapped][] = [
    ...Object.entries(span),
    ...Object.entries(trace).map(([k, v]): [string, Mapped] => [`trace.${k}`, v]),
  ];
  return Object.fromEntries(entries.map(([k, v]) => [k, v.value]));
};

describe(spanTypeOf.name, () => {
  it.each([
    [
      'platform.span.type wins over everything (row 1)',
      { 'platform.span.type': 'agent', 'openinference.span.kind': 'TOOL', 'gen_ai.system': 'x' },
      'AGENT',
      'SPEC 2.3 row 1',
    ],
    [
      'any gen_ai. or llm. key is LLM before a convention kind (row 2)',
      { 'openinference.span.kind': 'CHAIN', 'llm.system': 'openai' },
      'LLM',
      'SPEC 2.3 row 2',
    ],
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
    [
      'OpenInference before Langfuse',
      { 'openinference.span.kind': 'AGENT', 'langfuse.observation.type': 'tool' },
      'AGENT',
      'OpenInference kind',
    ],
  ])('%s', (_, attributes, type, rule) => {
    expect(spanTypeOf(view(attributes))).toMatchObject({ value: type, rule });
  });
});

describe('operation', () => {
  const operationOf = (attributes: JsonObject) => mapSpan(view(attributes)).span.operation;
  it.each([
    ['OTel GenAI chat', { 'gen_ai.operation.name': 'chat' }, 'chat', 'OTel GenAI'],
    [
      'OTel GenAI execute_tool (an LLM type by SPEC 2.3 row 2, a tool by operation)',
      { 'gen_ai.operation.name': 'execute_tool' },
      'execute_tool',
      'OTel GenAI',
    ],
    ['OTel GenAI invoke_agent', { 'gen_ai.operation.name': 'invoke_agent' }, 'invoke_agent', 'OTel GenAI'],
    ['OTel GenAI embeddings', { 'gen_ai.operation.name': 'embeddings' }, 'embeddings', 'OTel GenAI'],
    ['OTel GenAI names not listed are kept as sent', { 'gen_ai.operation.name': 'generate_content' }, 'generate_content', 'OTel GenAI'],
    ['OpenInference LLM', { 'openinference.span.kind': 'LLM' }, 'chat', 'OpenInference'],
    ['OpenInference TOOL', { 'openinference.span.kind': 'TOOL' }, 'execute_tool', 'OpenInference'],
    ['OpenInference AGENT', { 'openinference.span.kind': 'AGENT' }, 'invoke_agent', 'OpenInference'],
    ['OpenInference EMBEDDING', { 'openinference.span.kind': 'EMBEDDING' }, 'embeddings', 'OpenInference'],
    ['OpenInference RETRIEVER', { 'openinference.span.kind': 'RETRIEVER' }, 'retrieval', 'OpenInference'],
    ['OpenInference RERANKER', { 'openinference.span.kind': 'RERANKER' }, 'rerank', 'OpenInference'],
    ['OpenInference CHAIN', { 'openinference.span.kind': 'CHAIN' }, 'chain', 'OpenInference'],
    ['OpenInference GUARDRAIL', { 'openinference.span.kind': 'GUARDRAIL' }, 'guardrail', 'OpenInference'],
    ['OpenInference EVALUATOR', { 'openinference.span.kind': 'EVALUATOR' }, 'evaluator', 'OpenInference'],
    ['OpenLLMetry llm.request.type chat', { 'llm.request.type': 'chat' }, 'chat', 'OpenLLMetry'],
    ['OpenLLMetry llm.request.type completion', { 'llm.request.type': 'completion' }, 'text_completion', 'OpenLLMetry'],
    ['OpenLLMetry llm.request.type embedding', { 'llm.request.type': 'embedding' }, 'embeddings', 'OpenLLMetry'],
    ['OpenLLMetry tool', { 'traceloop.span.kind': 'tool' }, 'execute_tool', 'OpenLLMetry'],
    ['OpenLLMetry agent', { 'traceloop.span.kind': 'agent' }, 'invoke_agent', 'OpenLLMetry'],
    ['OpenLLMetry workflow', { 'traceloop.span.kind': 'workflow' }, 'workflow', 'OpenLLMetry'],
    ['Vercel doGenerate', { 'ai.operationId': 'ai.generateText.doGenerate' }, 'chat', 'Vercel AI SDK'],
    ['Vercel toolCall', { 'ai.operationId': 'ai.toolCall' }, 'execute_tool', 'Vercel AI SDK'],
    ['Vercel embed', { 'ai.operationId': 'ai.embed' }, 'embeddings', 'Vercel AI SDK'],
    ['Langfuse generation', { 'langfuse.observation.type': 'generation' }, 'chat', 'Langfuse'],
    ['Langfuse tool', { 'langfuse.observation.type': 'tool' }, 'execute_tool', 'Langfuse'],
    [
      'OTel GenAI before OpenInference',
      { 'gen_ai.operation.name': 'invoke_agent', 'openinference.span.kind': 'LLM' },
      'invoke_agent',
      'OTel GenAI',
    ],
  ])('%s', (_, attributes, value, rule) => {
    expect(operationOf(attributes)).toMatchObject({ value, rule });
  });

  it.each([
    ['no convention states one', { 'tool.name': 't' }],
    ['a Langfuse plain span', { 'langfuse.observation.type': 'span' }],
    ['an unknown kind', { 'openinference.span.kind': 'SOMETHING' }],
    ['an empty operation name', { 'gen_ai.operation.name': '' }],
  ])('none when %s', (_, attributes) => {
    expect(operationOf(attributes)).toBeUndefined();
  });

  it('never changes the type SPEC 2.3 decides', () => {
    expect(mapSpan(view({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' })).type).toMatchObject({
      value: 'LLM',
      rule: 'SPEC 2.3 row 2',
    });
  });
});

describe('tool input and output', () => {
  it.each([
    [
      'OTel GenAI arguments and result',
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.call.arguments': '{"city":"Paris"}',
        'gen_ai.tool.call.result': '{"temp":18}',
      },
      ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'],
      'OTel GenAI',
    ],
    [
      'OpenInference TOOL input.value and output.value',
      { 'openinference.span.kind': 'TOOL', 'input.value': '{"city":"Paris"}', 'output.value': '{"temp":18}' },
      ['input.value', 'output.value'],
      'OpenInference',
    ],
    [
      'Vercel ai.toolCall.args and .result',
      { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.args': '{"city":"Paris"}', 'ai.toolCall.result': '{"temp":18}' },
      ['ai.toolCall.args', 'ai.toolCall.result'],
      'Vercel AI SDK',
    ],
    [
      'OpenLLMetry entity input and output',
      { 'traceloop.span.kind': 'tool', 'traceloop.entity.input': '{"city":"Paris"}', 'traceloop.entity.output': '{"temp":18}' },
      ['traceloop.entity.input', 'traceloop.entity.output'],
      'OpenLLMetry',
    ],
    [
      'Pydantic AI tool_arguments and tool_response, on a span naming its tool',
      { 'gen_ai.tool.name': 'weather', tool_arguments: '{"city":"Paris"}', tool_response: '{"temp":18}' },
      ['tool_arguments', 'tool_response'],
      'OTel GenAI',
    ],
  ])('%s', (_, attributes, [inputKey, outputKey], rule) => {
    const { span } = mapSpan(view(attributes));
    expect(span.input).toEqual({ value: { city: 'Paris' }, from: [inputKey], rule });
    expect(span.output).toEqual({ value: { temp: 18 }, from: [outputKey], rule });
  });

  it('tool_arguments and tool_response say nothing on a span naming no tool', () => {
    expect(valuesOf({ tool_arguments: '{}', tool_response: 'x' })).toEqual({});
  });

  it('a result that is no JSON stays the text that was sent', () => {
    expect(valuesOf({ 'gen_ai.tool.call.arguments': 'x', 'gen_ai.tool.call.result': 'sunny' })).toMatchObject({
      input: 'x',
      output: 'sunny',
    });
  });
});

describe(mapSpan.name, () => {
  it('SPEC 2.2 attributes win over every convention, and the losers are listed as overridden', () => {
    const mapping = mapSpan(
      view({
        'gen_ai.request.model': 'a',
        'llm.model_name': 'b',
        'langfuse.observation.model.name': 'c',
        'gen_ai.prompt': 'p',
        'gen_ai.input.messages': '[{"role":"user"}]',
      }),
    );
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
    expect(
      valuesOf({}, [
        {
          name: 'gen_ai.client.inference.operation.details',
          attributes: { 'gen_ai.input.messages': [{ role: 'user' }], 'gen_ai.output.messages': '[{"role":"assistant"}]' },
        },
      ]),
    ).toEqual({
      input: [{ role: 'user' }],
      output: [{ role: 'assistant' }],
    });
    expect(
      valuesOf({}, [
        { name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': 'Q' } },
        { name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': 'A' } },
      ]),
    ).toEqual({ input: 'Q', output: 'A' });
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
    expect(valuesOf({ 'langfuse.observation.input': '42', 'langfuse.observation.output': '{"a":' })).toEqual({
      input: '42',
      output: '{"a":',
    });
  });

  it('Vercel usage and model count on provider calls only', () => {
    const usage = { 'ai.model.id': 'm', 'ai.usage.inputTokens': 3, 'ai.usage.outputTokens': 4 };
    expect(valuesOf({ ...usage, 'ai.operationId': 'ai.streamText.doStream' })).toEqual({
      operation: 'chat',
      model: 'm',
      promptTokens: 3,
      completionTokens: 4,
      usageDetails: { input: 3, output: 4 },
    });
    expect(valuesOf({ ...usage, 'ai.operationId': 'ai.streamText' })).toEqual({ operation: 'chain' });
  });

  it('lists the attributes no value was read from', () => {
    expect(mapSpan(view({ 'gen_ai.system': 'openai', 'gen_ai.request.model': 'm', 'server.port': 443 })).unused).toEqual(['server.port']);
  });
});
