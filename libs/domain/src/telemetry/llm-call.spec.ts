import { isLlmCall } from './llm-call';

describe(isLlmCall.name, () => {
  it('counts a span whose operation calls a model, whatever its type or the case', () => {
    for (const operation of ['chat', 'text_completion', 'generate_content', 'Chat']) {
      expect(isLlmCall({ type: 'LLM', operation })).toBe(true);
      expect(isLlmCall({ type: 'CUSTOM', operation })).toBe(true);
    }
  });

  it('leaves out tools, agents and other operations sent as LLM', () => {
    for (const operation of ['execute_tool', 'invoke_agent', 'embeddings', 'retrieval', 'workflow'])
      expect(isLlmCall({ type: 'LLM', operation })).toBe(false);
  });

  it('counts a span without an operation by its type', () => {
    expect(isLlmCall({ type: 'LLM', operation: null })).toBe(true);
    expect(isLlmCall({ type: 'LLM', operation: '' })).toBe(true);
    expect(isLlmCall({ type: 'TOOL', operation: undefined })).toBe(false);
    expect(isLlmCall({ type: null, operation: null })).toBe(false);
  });
});
