/**
 * SPEC 2.2's attributes and CONTRACT "OTLP"'s trace labels: the first table, so that where
 * they are present they win over every convention.
 */
import type { JsonObject } from '@app/domain';
import { setOwn } from '@app/domain/json/set-own';
import type { Convention } from './convention';
import { type Rule, amountOf, attribute, countOf, get, idLabelOf, labelOf, sentOf } from './readers';

export const SPEC_KEYS = {
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cost: 'gen_ai.usage.cost',
  prompt: 'gen_ai.prompt',
  completion: 'gen_ai.completion',
  requestPrefix: 'gen_ai.request.',
  userId: 'user.id',
  sessionId: 'session.id',
  conversationId: 'gen_ai.conversation.id',
  environment: 'deployment.environment.name',
  legacyEnvironment: 'deployment.environment',
} as const;

/**
 * `gen_ai.request.*` besides the model (temperature, max_tokens, top_p…) as the span's
 * `modelParameters`, keyed without the prefix, as a native generation carries them.
 */
const requestParameters: Rule<JsonObject> = ({ attributes }) => {
  const value: JsonObject = {};
  const from: string[] = [];
  for (const key of Object.keys(attributes)) {
    if (!key.startsWith(SPEC_KEYS.requestPrefix) || key === SPEC_KEYS.requestModel) continue;
    setOwn(value, key.slice(SPEC_KEYS.requestPrefix.length), attributes[key]);
    from.push(key);
  }
  return from.length > 0 ? { value, from } : undefined;
};

/** CONTRACT "OTLP": a trace label on the span (the more specific source), else on its resource. */
const spanOrResource =
  (key: string): Rule<string> =>
  ({ attributes, resource }) => {
    const onSpan = idLabelOf(get(attributes, key));
    if (onSpan !== undefined) return { value: onSpan, from: [key] };
    const onResource = idLabelOf(get(resource, key));
    return onResource === undefined ? undefined : { value: onResource, from: [`resource ${key}`] };
  };

export const SPEC: Convention = {
  name: 'SPEC 2.2',
  span: {
    // The requested model names what the caller chose; the response model is often a dated variant.
    model: [attribute(SPEC_KEYS.requestModel, labelOf), attribute(SPEC_KEYS.responseModel, labelOf)],
    modelParameters: [requestParameters],
    promptTokens: [attribute(SPEC_KEYS.inputTokens, countOf)],
    completionTokens: [attribute(SPEC_KEYS.outputTokens, countOf)],
    cost: [attribute(SPEC_KEYS.cost, amountOf)],
    // As sent: SPEC 2.2 names these attributes' values as the input and output.
    input: [attribute(SPEC_KEYS.prompt, sentOf)],
    output: [attribute(SPEC_KEYS.completion, sentOf)],
  },
  trace: {
    userId: [spanOrResource(SPEC_KEYS.userId)],
    sessionId: [spanOrResource(SPEC_KEYS.sessionId), spanOrResource(SPEC_KEYS.conversationId)],
    environment: [spanOrResource(SPEC_KEYS.environment), spanOrResource(SPEC_KEYS.legacyEnvironment)],
  },
};
