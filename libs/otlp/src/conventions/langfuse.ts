/**
 * Langfuse's OTel attributes (`@langfuse/tracing` 4+, langfuse-python 3+): the observation's
 * type, model, usage and cost details, input and output as JSON text, and the trace's name,
 * tags and metadata, which the SDK copies onto every span of the trace.
 */
import { type JsonObject, type UsageDetails, namedUsage, tokenTotalsOf } from '@app/domain';
import { type Convention, kindTable } from './convention';
import {
  type Found,
  type Rule,
  amountOf,
  attribute,
  get,
  idLabelOf,
  labelOf,
  labelsOf,
  objectOf,
  prefixedObjectOf,
  structuredOf,
} from './readers';

export const LANGFUSE_KEYS = {
  observationType: 'langfuse.observation.type',
  modelName: 'langfuse.observation.model.name',
  modelParameters: 'langfuse.observation.model.parameters',
  usageDetails: 'langfuse.observation.usage_details',
  costDetails: 'langfuse.observation.cost_details',
  input: 'langfuse.observation.input',
  output: 'langfuse.observation.output',
  traceTags: 'langfuse.trace.tags',
  traceMetadata: 'langfuse.trace.metadata',
  userId: 'langfuse.user.id',
  sessionId: 'langfuse.session.id',
  environment: 'langfuse.environment',
} as const;

/** `langfuse.observation.type`: a plain `span` states no type; the others map by name (retriever → RETRIEVAL). */
const KINDS = {
  generation: 'LLM',
  agent: 'AGENT',
  tool: 'TOOL',
  chain: 'CHAIN',
  retriever: 'RETRIEVAL',
  embedding: 'EMBEDDING',
  evaluator: 'EVALUATOR',
  guardrail: 'GUARDRAIL',
  event: 'EVENT',
} as const;

/** `langfuse.observation.type` to operations: a plain `span` states none. */
const OPERATIONS = {
  generation: 'chat',
  agent: 'invoke_agent',
  tool: 'execute_tool',
  chain: 'chain',
  retriever: 'retrieval',
  embedding: 'embeddings',
  evaluator: 'evaluator',
  guardrail: 'guardrail',
  event: 'event',
} as const;

/** One entry of a details object (usage or cost), the first of `names` that holds a value `read` takes. */
const detail =
  (key: string, names: readonly string[], read: (value: JsonObject[string]) => number | undefined): Rule<number> =>
  ({ attributes }) => {
    const details = objectOf(get(attributes, key));
    if (!details) return undefined;
    for (const name of names) {
      const value = Object.hasOwn(details, name) ? read(details[name]) : undefined;
      if (value !== undefined) return { value, from: [key] } satisfies Found<number>;
    }
    return undefined;
  };

/** `usage_details` names its types apart already (Langfuse prices each on its own): each as its type. */
const usageDetails: Rule<UsageDetails> = ({ attributes }) => {
  const details = objectOf(get(attributes, LANGFUSE_KEYS.usageDetails));
  const value = details && namedUsage(details);
  return value === undefined ? undefined : { value, from: [LANGFUSE_KEYS.usageDetails] };
};

/** A token count of `usage_details` counted from its types, as a native `usageDetails` is (`tokenTotalsOf`). */
const usageSide =
  (side: 'input' | 'output'): Rule<number> =>
  (span) => {
    const found = usageDetails(span);
    const value = found === undefined ? undefined : tokenTotalsOf(found.value)[side];
    return found === undefined || value === undefined ? undefined : { value, from: found.from };
  };

/** The trace metadata: one attribute per key (`langfuse.trace.metadata.<key>`, what the SDKs send) or one JSON object. */
const traceMetadata: Rule<JsonObject> = (span) =>
  prefixedObjectOf(span.attributes, LANGFUSE_KEYS.traceMetadata) ?? attribute(LANGFUSE_KEYS.traceMetadata, objectOf)(span);

export const LANGFUSE: Convention = {
  name: 'Langfuse',
  span: {
    operation: [kindTable(LANGFUSE_KEYS.observationType, OPERATIONS)],
    model: [attribute(LANGFUSE_KEYS.modelName, labelOf)],
    modelParameters: [attribute(LANGFUSE_KEYS.modelParameters, objectOf)],
    // The SDKs write `input`/`output` and the cache types apart; usage copied from an OpenAI response keeps its own names.
    promptTokens: [usageSide('input')],
    completionTokens: [usageSide('output')],
    usageDetails: [usageDetails],
    cost: [detail(LANGFUSE_KEYS.costDetails, ['total'], amountOf)],
    input: [attribute(LANGFUSE_KEYS.input, structuredOf)],
    output: [attribute(LANGFUSE_KEYS.output, structuredOf)],
  },
  trace: {
    userId: [attribute(LANGFUSE_KEYS.userId, idLabelOf)],
    sessionId: [attribute(LANGFUSE_KEYS.sessionId, idLabelOf)],
    environment: [attribute(LANGFUSE_KEYS.environment, labelOf)],
    tags: [attribute(LANGFUSE_KEYS.traceTags, labelsOf)],
    metadata: [traceMetadata],
  },
  kind: kindTable(LANGFUSE_KEYS.observationType, KINDS),
};
