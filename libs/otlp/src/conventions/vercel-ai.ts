/**
 * The Vercel AI SDK (`ai`, `experimental_telemetry`): `ai.*` keys named by `ai.operationId`.
 * A call (`ai.generateText`) wraps one provider call per step (`ai.generateText.doGenerate`)
 * and its tool calls (`ai.toolCall`).
 */
import { USAGE_TYPES } from '@app/domain';
import { type Convention, kindTable } from './convention';
import {
  type SpanView,
  attribute,
  countOf,
  get,
  idLabelOf,
  labelOf,
  labelsOf,
  onlyWhere,
  prefixedObjectOf,
  presentOf,
  structuredOf,
} from './readers';
import { type UsageTable, usageOf } from './usage';

export const VERCEL_AI_KEYS = {
  operationId: 'ai.operationId',
  modelId: 'ai.model.id',
  inputTokens: 'ai.usage.inputTokens',
  promptTokens: 'ai.usage.promptTokens',
  outputTokens: 'ai.usage.outputTokens',
  completionTokens: 'ai.usage.completionTokens',
  cachedInputTokens: 'ai.usage.cachedInputTokens',
  reasoningTokens: 'ai.usage.reasoningTokens',
  promptMessages: 'ai.prompt.messages',
  prompt: 'ai.prompt',
  toolCallArgs: 'ai.toolCall.args',
  toolCallInput: 'ai.toolCall.input',
  values: 'ai.values',
  value: 'ai.value',
  responseText: 'ai.response.text',
  responseObject: 'ai.response.object',
  responseToolCalls: 'ai.response.toolCalls',
  toolCallResult: 'ai.toolCall.result',
  toolCallOutput: 'ai.toolCall.output',
  embeddings: 'ai.embeddings',
  embedding: 'ai.embedding',
  telemetryMetadata: 'ai.telemetry.metadata',
  userId: 'ai.telemetry.metadata.userId',
  sessionId: 'ai.telemetry.metadata.sessionId',
  tags: 'ai.telemetry.metadata.tags',
} as const;

/** `ai.operationId` values (compared in lower case): provider calls are LLM or EMBEDDING, the calls around them CHAIN. */
const KINDS = {
  'ai.generatetext': 'CHAIN',
  'ai.streamtext': 'CHAIN',
  'ai.generateobject': 'CHAIN',
  'ai.streamobject': 'CHAIN',
  'ai.generatetext.dogenerate': 'LLM',
  'ai.streamtext.dostream': 'LLM',
  'ai.generateobject.dogenerate': 'LLM',
  'ai.streamobject.dostream': 'LLM',
  'ai.embed': 'EMBEDDING',
  'ai.embedmany': 'EMBEDDING',
  'ai.embed.doembed': 'EMBEDDING',
  'ai.embedmany.doembed': 'EMBEDDING',
  'ai.toolcall': 'TOOL',
} as const;

/** `ai.operationId` to operations: provider calls `chat` or `embeddings`, tool calls `execute_tool`, the calls around provider calls `chain`. */
const OPERATIONS = {
  'ai.generatetext': 'chain',
  'ai.streamtext': 'chain',
  'ai.generateobject': 'chain',
  'ai.streamobject': 'chain',
  'ai.generatetext.dogenerate': 'chat',
  'ai.streamtext.dostream': 'chat',
  'ai.generateobject.dogenerate': 'chat',
  'ai.streamobject.dostream': 'chat',
  'ai.embed': 'embeddings',
  'ai.embedmany': 'embeddings',
  'ai.embed.doembed': 'embeddings',
  'ai.embedmany.doembed': 'embeddings',
  'ai.toolcall': 'execute_tool',
} as const;

const PROVIDER_CALL = /\.do(Generate|Stream|Embed)$/;

/**
 * Model and usage count on provider calls only: the call around them repeats the sum of its
 * steps' usage, and a trace's tokens and a model's calls are counted from its spans, so taking
 * both would count every call twice.
 */
const isProviderCall = ({ attributes }: SpanView): boolean => {
  const operation = get(attributes, VERCEL_AI_KEYS.operationId);
  return typeof operation === 'string' && PROVIDER_CALL.test(operation);
};

/** AI SDK 5+: `inputTokens` includes `cachedInputTokens`, `outputTokens` includes `reasoningTokens`. */
const USAGE: UsageTable = {
  input: [VERCEL_AI_KEYS.inputTokens, VERCEL_AI_KEYS.promptTokens],
  output: [VERCEL_AI_KEYS.outputTokens, VERCEL_AI_KEYS.completionTokens],
  parts: [
    { key: VERCEL_AI_KEYS.cachedInputTokens, type: USAGE_TYPES.cachedInput, of: 'input' },
    { key: VERCEL_AI_KEYS.reasoningTokens, type: USAGE_TYPES.reasoning, of: 'output' },
  ],
};

export const VERCEL_AI: Convention = {
  name: 'Vercel AI SDK',
  span: {
    operation: [kindTable(VERCEL_AI_KEYS.operationId, OPERATIONS)],
    model: [onlyWhere(isProviderCall, attribute(VERCEL_AI_KEYS.modelId, labelOf))],
    // AI SDK 5+ names usage input/output; 4 named it prompt/completion.
    promptTokens: [
      onlyWhere(isProviderCall, attribute(VERCEL_AI_KEYS.inputTokens, countOf)),
      onlyWhere(isProviderCall, attribute(VERCEL_AI_KEYS.promptTokens, countOf)),
    ],
    completionTokens: [
      onlyWhere(isProviderCall, attribute(VERCEL_AI_KEYS.outputTokens, countOf)),
      onlyWhere(isProviderCall, attribute(VERCEL_AI_KEYS.completionTokens, countOf)),
    ],
    usageDetails: [onlyWhere(isProviderCall, usageOf(USAGE))],
    // A provider call carries the messages it sent; the call around it the prompt it was given (`{prompt}` or `{system, messages}`).
    input: [
      attribute(VERCEL_AI_KEYS.promptMessages, structuredOf),
      attribute(VERCEL_AI_KEYS.prompt, structuredOf),
      attribute(VERCEL_AI_KEYS.toolCallInput, structuredOf),
      attribute(VERCEL_AI_KEYS.toolCallArgs, structuredOf),
      attribute(VERCEL_AI_KEYS.values, structuredOf),
      attribute(VERCEL_AI_KEYS.value, structuredOf),
    ],
    // Text is empty when a step only calls tools: then the tool calls are what it answered.
    output: [
      attribute(VERCEL_AI_KEYS.responseText, presentOf),
      attribute(VERCEL_AI_KEYS.responseObject, structuredOf),
      attribute(VERCEL_AI_KEYS.responseToolCalls, structuredOf),
      attribute(VERCEL_AI_KEYS.toolCallOutput, structuredOf),
      attribute(VERCEL_AI_KEYS.toolCallResult, structuredOf),
      attribute(VERCEL_AI_KEYS.embeddings, structuredOf),
      attribute(VERCEL_AI_KEYS.embedding, structuredOf),
    ],
  },
  trace: {
    userId: [attribute(VERCEL_AI_KEYS.userId, idLabelOf)],
    sessionId: [attribute(VERCEL_AI_KEYS.sessionId, idLabelOf)],
    tags: [attribute(VERCEL_AI_KEYS.tags, labelsOf)],
    metadata: [({ attributes }) => prefixedObjectOf(attributes, VERCEL_AI_KEYS.telemetryMetadata)],
  },
  kind: kindTable(VERCEL_AI_KEYS.operationId, KINDS),
};
