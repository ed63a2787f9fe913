/**
 * The OpenTelemetry GenAI semantic conventions beyond SPEC 2.2's attributes: the current
 * content attributes (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`), the older usage names, and content sent as span events or
 * log records named `gen_ai.*`, and a tool call's arguments and result. `gen_ai.operation.name`
 * is the span's `operation`, not its `kind`: any `gen_ai.*` key already makes a span LLM by
 * SPEC 2.3 row 2, which comes first, and the operation tells a tool or agent span apart beside it.
 */
import { type JsonObject, type JsonValue, USAGE_TYPES, isJsonObject } from '@app/domain';
import type { Convention } from './convention';
import { OPENLLMETRY_KEYS } from './openllmetry';
import {
  type EventView,
  type Found,
  type Rule,
  type SpanView,
  attribute,
  countOf,
  get,
  has,
  labelOf,
  onlyWhere,
  presentOf,
  structuredOf,
} from './readers';
import { SPEC_KEYS } from './spec';
import { type UsageTable, usageOf } from './usage';

export const GEN_AI_KEYS = {
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  promptTokens: 'gen_ai.usage.prompt_tokens',
  completionTokens: 'gen_ai.usage.completion_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  reasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  prompt: 'gen_ai.prompt',
  completion: 'gen_ai.completion',
  operationName: 'gen_ai.operation.name',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  toolName: 'gen_ai.tool.name',
  /** Pydantic AI's names for the arguments and result before the conventions had theirs (its instrumentation versions ≤ 2). */
  legacyToolArguments: 'tool_arguments',
  legacyToolResponse: 'tool_response',
} as const;

/** Events (span events or log records) that carry content, by name. */
export const GEN_AI_EVENTS = {
  /** Semantic conventions 1.37+: the whole exchange as attributes of one event. */
  operationDetails: 'gen_ai.client.inference.operation.details',
  /** Semantic conventions ≤ 1.26: one event each for the prompt and the completion. */
  contentPrompt: 'gen_ai.content.prompt',
  contentCompletion: 'gen_ai.content.completion',
  /** Semantic conventions 1.27–1.36: one event per message, one per choice. */
  choice: 'gen_ai.choice',
} as const;

/** The message events of 1.27–1.36 and the role each stands for. */
const MESSAGE_EVENT_ROLES: Readonly<Record<string, string>> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

/** Whether an event or log record name is one this convention reads content from. */
export const isGenAiContentEvent = (name: string): boolean =>
  Object.hasOwn(MESSAGE_EVENT_ROLES, name) || (Object.values(GEN_AI_EVENTS) as string[]).includes(name);

const asList = (value: JsonValue | undefined): JsonValue[] | undefined => {
  const structured = structuredOf(value);
  return Array.isArray(structured) ? structured : undefined;
};

/**
 * The input messages, with the system instructions (kept apart by the conventions) first as
 * a `system` message, so the input stays one list of messages in the conventions' own shape.
 */
function inputMessagesOf(attributes: JsonObject, where: (key: string) => string): Found | undefined {
  const messages = asList(get(attributes, GEN_AI_KEYS.inputMessages));
  const instructions = presentOf(structuredOf(get(attributes, GEN_AI_KEYS.systemInstructions)));
  if (messages === undefined && instructions === undefined) return undefined;
  const system =
    instructions === undefined
      ? []
      : [{ role: 'system', parts: typeof instructions === 'string' ? [{ type: 'text', content: instructions }] : instructions }];
  const from = [
    ...(instructions === undefined ? [] : [where(GEN_AI_KEYS.systemInstructions)]),
    ...(messages === undefined ? [] : [where(GEN_AI_KEYS.inputMessages)]),
  ];
  return { value: [...system, ...(messages ?? [])], from };
}

function outputMessagesOf(attributes: JsonObject, where: (key: string) => string): Found | undefined {
  const messages = asList(get(attributes, GEN_AI_KEYS.outputMessages));
  return messages === undefined ? undefined : { value: messages, from: [where(GEN_AI_KEYS.outputMessages)] };
}

/** What a per-message event says: its body (a log record's), else its attributes but the event's own `gen_ai.*` and `event.name` keys. */
function payloadOf(event: EventView): JsonValue | undefined {
  if (event.body !== undefined && event.body !== null) return event.body;
  const rest = Object.entries(event.attributes).filter(([key]) => !key.startsWith('gen_ai.') && key !== 'event.name');
  return rest.length > 0 ? Object.fromEntries(rest) : undefined;
}

const eventLabel = (event: EventView): string => `event ${event.name}`;

/** The last event of that name: an exporter that repeats one keeps its latest. */
const lastNamed = (events: readonly EventView[], name: string): EventView | undefined => events.findLast((e) => e.name === name);

/**
 * Input and output from content events, in event order: the 1.37+ details event, else the
 * per-message events (each a message with the role its name says) and choice events, else
 * the ≤ 1.26 prompt and completion events. Shared by span events and log records.
 */
export function contentOfEvents(events: readonly EventView[]): { input?: Found; output?: Found } {
  const details = lastNamed(events, GEN_AI_EVENTS.operationDetails);
  const detailsAt = (key: string) => `event ${GEN_AI_EVENTS.operationDetails} ${key}`;
  const messages: JsonValue[] = [];
  const messagesFrom: string[] = [];
  const choices: JsonValue[] = [];
  const choicesFrom: string[] = [];
  for (const event of events) {
    const role = Object.hasOwn(MESSAGE_EVENT_ROLES, event.name) ? MESSAGE_EVENT_ROLES[event.name] : undefined;
    const payload = payloadOf(event);
    if (role !== undefined) {
      messages.push(isJsonObject(payload) ? { role, ...payload } : { role, content: payload ?? null });
      messagesFrom.push(eventLabel(event));
    } else if (event.name === GEN_AI_EVENTS.choice && payload !== undefined) {
      choices.push(payload);
      choicesFrom.push(eventLabel(event));
    }
  }
  const prompt = lastNamed(events, GEN_AI_EVENTS.contentPrompt);
  const completion = lastNamed(events, GEN_AI_EVENTS.contentCompletion);
  const promptValue = prompt && structuredOf(get(prompt.attributes, GEN_AI_KEYS.prompt));
  const completionValue = completion && structuredOf(get(completion.attributes, GEN_AI_KEYS.completion));
  return {
    input:
      (details && inputMessagesOf(details.attributes, detailsAt)) ??
      (messages.length > 0 ? { value: messages, from: [...new Set(messagesFrom)] } : undefined) ??
      (promptValue !== undefined
        ? { value: promptValue, from: [`event ${GEN_AI_EVENTS.contentPrompt} ${GEN_AI_KEYS.prompt}`] }
        : undefined),
    output:
      (details && outputMessagesOf(details.attributes, detailsAt)) ??
      (choices.length > 0 ? { value: choices, from: [...new Set(choicesFrom)] } : undefined) ??
      (completionValue !== undefined
        ? { value: completionValue, from: [`event ${GEN_AI_EVENTS.contentCompletion} ${GEN_AI_KEYS.completion}`] }
        : undefined),
  };
}

/**
 * `gen_ai.usage.*`: the conventions' totals include their cache reads and writes (input) and
 * reasoning (output). OpenLLMetry writes its own names for those parts into the same namespace,
 * so they are read here, after the conventions' own.
 */
const USAGE: UsageTable = {
  input: [SPEC_KEYS.inputTokens, GEN_AI_KEYS.promptTokens],
  output: [SPEC_KEYS.outputTokens, GEN_AI_KEYS.completionTokens],
  parts: [
    { key: GEN_AI_KEYS.cacheReadInputTokens, type: USAGE_TYPES.cachedInput, of: 'input' },
    { key: OPENLLMETRY_KEYS.cacheReadInputTokens, type: USAGE_TYPES.cachedInput, of: 'input' },
    { key: GEN_AI_KEYS.cacheCreationInputTokens, type: USAGE_TYPES.cacheWrite, of: 'input' },
    { key: OPENLLMETRY_KEYS.cacheCreationInputTokens, type: USAGE_TYPES.cacheWrite, of: 'input' },
    { key: GEN_AI_KEYS.reasoningOutputTokens, type: USAGE_TYPES.reasoning, of: 'output' },
    { key: OPENLLMETRY_KEYS.reasoningTokens, type: USAGE_TYPES.reasoning, of: 'output' },
  ],
};

const own = (key: string) => key;
/** Unprefixed keys say something only on a span that names the tool it calls. */
const isToolCall = ({ attributes }: SpanView): boolean => has(attributes, GEN_AI_KEYS.toolName);
const inputFromEvents: Rule = ({ events }) => contentOfEvents(events).input;
const outputFromEvents: Rule = ({ events }) => contentOfEvents(events).output;

export const GEN_AI: Convention = {
  name: 'OTel GenAI',
  span: {
    // As sent: the conventions' names (`chat`, `execute_tool`, `invoke_agent`…) and any newer one.
    operation: [attribute(GEN_AI_KEYS.operationName, labelOf)],
    promptTokens: [attribute(GEN_AI_KEYS.promptTokens, countOf)],
    completionTokens: [attribute(GEN_AI_KEYS.completionTokens, countOf)],
    usageDetails: [usageOf(USAGE)],
    // An `execute_tool` span's arguments and result are its input and output.
    input: [
      ({ attributes }) => inputMessagesOf(attributes, own),
      inputFromEvents,
      attribute(GEN_AI_KEYS.toolCallArguments, structuredOf),
      onlyWhere(isToolCall, attribute(GEN_AI_KEYS.legacyToolArguments, structuredOf)),
    ],
    output: [
      ({ attributes }) => outputMessagesOf(attributes, own),
      outputFromEvents,
      attribute(GEN_AI_KEYS.toolCallResult, structuredOf),
      onlyWhere(isToolCall, attribute(GEN_AI_KEYS.legacyToolResponse, structuredOf)),
    ],
  },
  trace: {},
};
