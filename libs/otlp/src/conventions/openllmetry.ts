/**
 * OpenLLMetry (Traceloop; `@traceloop/*`, `opentelemetry-instrumentation-*` from
 * openllmetry): content flattened as `gen_ai.prompt.<i>.<field>` /
 * `gen_ai.completion.<i>.<field>` (its releases before the current GenAI attributes), the
 * entity input and output of its workflows and tasks, and association properties.
 */
import { type Convention, kindTable } from './convention';
import { type Rule, attribute, flattenedListOf, idLabelOf, prefixedObjectOf, structuredOf } from './readers';

export const OPENLLMETRY_KEYS = {
  spanKind: 'traceloop.span.kind',
  requestType: 'llm.request.type',
  prompts: 'gen_ai.prompt',
  completions: 'gen_ai.completion',
  entityInput: 'traceloop.entity.input',
  entityOutput: 'traceloop.entity.output',
  associationProperties: 'traceloop.association.properties',
  userId: 'traceloop.association.properties.user_id',
  sessionId: 'traceloop.association.properties.session_id',
  // Usage parts in the `gen_ai.usage.*` namespace, read by that namespace's table (gen-ai.ts).
  cacheReadInputTokens: 'gen_ai.usage.cache_read_input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation_input_tokens',
  reasoningTokens: 'gen_ai.usage.reasoning_tokens',
} as const;

/** `traceloop.span.kind`: a workflow or task groups calls (CHAIN); agent and tool keep their names. */
const KINDS = { workflow: 'CHAIN', task: 'CHAIN', agent: 'AGENT', tool: 'TOOL' } as const;

/** `llm.request.type` (the call an LLM span makes) to the OTel GenAI operation names. */
const REQUEST_OPERATIONS = { chat: 'chat', completion: 'text_completion', embedding: 'embeddings', rerank: 'rerank' } as const;

/** `traceloop.span.kind` to operations: agent and tool as OTel GenAI names them, workflow and task as they are. */
const KIND_OPERATIONS = { workflow: 'workflow', task: 'task', agent: 'invoke_agent', tool: 'execute_tool' } as const;

const list =
  (prefix: string): Rule =>
  ({ attributes }) =>
    flattenedListOf(attributes, prefix);

export const OPENLLMETRY: Convention = {
  name: 'OpenLLMetry',
  span: {
    operation: [kindTable(OPENLLMETRY_KEYS.requestType, REQUEST_OPERATIONS), kindTable(OPENLLMETRY_KEYS.spanKind, KIND_OPERATIONS)],
    // A tool task's entity input and output are its arguments and result.
    input: [list(OPENLLMETRY_KEYS.prompts), attribute(OPENLLMETRY_KEYS.entityInput, structuredOf)],
    output: [list(OPENLLMETRY_KEYS.completions), attribute(OPENLLMETRY_KEYS.entityOutput, structuredOf)],
  },
  trace: {
    userId: [attribute(OPENLLMETRY_KEYS.userId, idLabelOf)],
    sessionId: [attribute(OPENLLMETRY_KEYS.sessionId, idLabelOf)],
    metadata: [({ attributes }) => prefixedObjectOf(attributes, OPENLLMETRY_KEYS.associationProperties)],
  },
  kind: kindTable(OPENLLMETRY_KEYS.spanKind, KINDS),
};
