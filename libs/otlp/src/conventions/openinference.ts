/**
 * OpenInference (Arize Phoenix; `@arizeai/openinference-*`, `openinference.instrumentation.*`):
 * `llm.*` model, token and cost keys, messages flattened as
 * `llm.input_messages.<i>.message.<field>`, and `input.value` / `output.value` for any span.
 */
import { type JsonValue, USAGE_TYPES, isJsonObject } from '@app/domain';
import { type Convention, kindTable } from './convention';
import { type Found, type Rule, amountOf, attribute, countOf, flattenedListOf, labelOf, labelsOf, objectOf, structuredOf } from './readers';
import { type UsageTable, usageOf } from './usage';

export const OPENINFERENCE_KEYS = {
  spanKind: 'openinference.span.kind',
  modelName: 'llm.model_name',
  embeddingModelName: 'embedding.model_name',
  promptTokens: 'llm.token_count.prompt',
  completionTokens: 'llm.token_count.completion',
  promptCacheRead: 'llm.token_count.prompt_details.cache_read',
  promptCacheWrite: 'llm.token_count.prompt_details.cache_write',
  promptAudio: 'llm.token_count.prompt_details.audio',
  completionReasoning: 'llm.token_count.completion_details.reasoning',
  completionAudio: 'llm.token_count.completion_details.audio',
  costTotal: 'llm.cost.total',
  invocationParameters: 'llm.invocation_parameters',
  inputMessages: 'llm.input_messages',
  outputMessages: 'llm.output_messages',
  inputValue: 'input.value',
  outputValue: 'output.value',
  tags: 'tag.tags',
  metadata: 'metadata',
} as const;

/** `openinference.span.kind` values; RETRIEVER is Spanlog's RETRIEVAL, the rest keep their names. */
const KINDS = {
  llm: 'LLM',
  chain: 'CHAIN',
  tool: 'TOOL',
  agent: 'AGENT',
  retriever: 'RETRIEVAL',
  embedding: 'EMBEDDING',
  reranker: 'RERANKER',
  guardrail: 'GUARDRAIL',
  evaluator: 'EVALUATOR',
  prompt: 'PROMPT',
} as const;

/** `openinference.span.kind` to operations: the OTel GenAI names where one exists, else the kind's own name in lower case. */
const OPERATIONS = {
  llm: 'chat',
  tool: 'execute_tool',
  agent: 'invoke_agent',
  embedding: 'embeddings',
  retriever: 'retrieval',
  reranker: 'rerank',
  chain: 'chain',
  guardrail: 'guardrail',
  evaluator: 'evaluator',
  prompt: 'prompt',
} as const;

/** `llm.token_count.prompt` and `.completion` include their `_details`; audio keeps its own type on each side. */
const USAGE: UsageTable = {
  input: [OPENINFERENCE_KEYS.promptTokens],
  output: [OPENINFERENCE_KEYS.completionTokens],
  parts: [
    { key: OPENINFERENCE_KEYS.promptCacheRead, type: USAGE_TYPES.cachedInput, of: 'input' },
    { key: OPENINFERENCE_KEYS.promptCacheWrite, type: USAGE_TYPES.cacheWrite, of: 'input' },
    { key: OPENINFERENCE_KEYS.promptAudio, type: 'input_audio', of: 'input' },
    { key: OPENINFERENCE_KEYS.completionReasoning, type: USAGE_TYPES.reasoning, of: 'output' },
    { key: OPENINFERENCE_KEYS.completionAudio, type: 'output_audio', of: 'output' },
  ],
};

/** Each flattened item is `{message: {role, content, …}}`: the message itself is the list's item. */
const messages =
  (prefix: string): Rule =>
  ({ attributes }) => {
    const found = flattenedListOf(attributes, prefix);
    if (!found) return undefined;
    const value = found.value.map((item): JsonValue => (isJsonObject(item) && isJsonObject(item.message) ? item.message : item));
    return { value, from: found.from } satisfies Found;
  };

export const OPENINFERENCE: Convention = {
  name: 'OpenInference',
  span: {
    operation: [kindTable(OPENINFERENCE_KEYS.spanKind, OPERATIONS)],
    model: [attribute(OPENINFERENCE_KEYS.modelName, labelOf), attribute(OPENINFERENCE_KEYS.embeddingModelName, labelOf)],
    modelParameters: [attribute(OPENINFERENCE_KEYS.invocationParameters, objectOf)],
    promptTokens: [attribute(OPENINFERENCE_KEYS.promptTokens, countOf)],
    completionTokens: [attribute(OPENINFERENCE_KEYS.completionTokens, countOf)],
    usageDetails: [usageOf(USAGE)],
    cost: [attribute(OPENINFERENCE_KEYS.costTotal, amountOf)],
    // The messages are the content itself; `input.value` is the whole request (model, parameters and all), used when no messages are sent,
    // and a TOOL span's arguments (`tool.parameters` is the tool's parameter schema, not its input, and stays an attribute).
    input: [messages(OPENINFERENCE_KEYS.inputMessages), attribute(OPENINFERENCE_KEYS.inputValue, structuredOf)],
    output: [messages(OPENINFERENCE_KEYS.outputMessages), attribute(OPENINFERENCE_KEYS.outputValue, structuredOf)],
  },
  trace: {
    tags: [attribute(OPENINFERENCE_KEYS.tags, labelsOf)],
    metadata: [attribute(OPENINFERENCE_KEYS.metadata, objectOf)],
  },
  kind: kindTable(OPENINFERENCE_KEYS.spanKind, KINDS),
};
