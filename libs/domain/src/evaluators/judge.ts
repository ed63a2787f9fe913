import { EVALUATOR_LIMITS as LIMITS } from '../limits';
import type { JsonObject, JsonValue } from '../json/types';
import type { ChatMessage, PromptTemplateBody } from '../prompts/prompt-template';
import { costOf } from '../pricing/cost';
import type { PriceTable } from '../pricing/price-table';
import { USAGE_TYPES } from '../telemetry/usage-details';
import { EVAL_RUN_REASONS, type EvalRunReason, type JudgeCallRecord } from './eval-run';
import type { JudgeScoreType, JudgeSettings } from './evaluator';
import type { EvaluationTarget } from './trace-target';
import type { CallOutcome } from './webhook';

/**
 * What a judge's prompt reads of its target (`judgeInputOf`): a span's or a trace's input,
 * output and metadata, the same way, so a judge needs not know which it judges.
 */
export interface JudgeInput {
  input: JsonValue | null;
  output: JsonValue | null;
  metadata: JsonValue | null;
  /**
   * The expected output of the dataset item a run item links the target to (its trace belongs
   * to an experiment); null, and `{{expectedOutput}}` compiles to nothing, when none does.
   */
  expectedOutput: JsonValue | null;
}

/**
 * A judge's input from its target: the span's, or the trace's (its input and output, or its
 * root span's), with the expected output of the dataset item linked to it, looked up by the store.
 */
export const judgeInputOf = (target: EvaluationTarget, expectedOutput: JsonValue | null): JudgeInput =>
  target.kind === 'span'
    ? { input: target.input, output: target.output, metadata: target.metadata, expectedOutput }
    : { input: target.trace.input, output: target.trace.output, metadata: target.trace.metadata, expectedOutput };

/** The variables a judge's prompt template may use. */
export const JUDGE_VARIABLES = ['input', 'output', 'expectedOutput', 'metadata'] as const;
type JudgeVariable = (typeof JUDGE_VARIABLES)[number];

const VARIABLE = /\{\{\s*(input|output|expectedOutput|metadata)\s*\}\}/g;
const OUTPUT_VARIABLE = /\{\{\s*output\s*\}\}/;

const messagesOf = (template: PromptTemplateBody): ChatMessage[] =>
  typeof template === 'string' ? [{ role: 'user', content: template }] : template;

/** Whether a template shows the judge the output it judges: a span judge without it has nothing to score. */
export const templateUsesOutput = (template: PromptTemplateBody): boolean =>
  messagesOf(template).some((m) => OUTPUT_VARIABLE.test(m.content));

/** A value as the judge reads it: text as it is, any other JSON value as its JSON, cut to a bound length. */
function asPromptText(value: JsonValue | null): string {
  const text = typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value);
  return text.length > LIMITS.judgeVariableLength
    ? `${text.slice(0, LIMITS.judgeVariableLength)}… [cut at ${LIMITS.judgeVariableLength} characters]`
    : text;
}

/**
 * The messages a judge is sent: the template (a text template is one user message) with each
 * `{{input}}`, `{{output}}`, `{{expectedOutput}}` and `{{metadata}}` replaced by the target's
 * value. One pass over the template: a value that itself reads `{{output}}` stays as it is.
 * Other `{{…}}` are left alone (a template may show braces to the model).
 */
export function compileJudgePrompt(template: PromptTemplateBody, target: JudgeInput): ChatMessage[] {
  const values: Record<JudgeVariable, string> = {
    input: asPromptText(target.input),
    output: asPromptText(target.output),
    expectedOutput: asPromptText(target.expectedOutput),
    metadata: asPromptText(target.metadata),
  };
  return messagesOf(template).map((m) => ({
    role: m.role,
    content: m.content.replace(VARIABLE, (_, name: JudgeVariable) => values[name]),
  }));
}

/** The JSON schema of the answer a judge must give: its score, of the judge's type, and its reasoning. */
export function judgeAnswerSchema(judge: Pick<JudgeSettings, 'scoreType' | 'categories'>): JsonObject {
  const score: Record<JudgeScoreType, JsonObject> = {
    numeric: { type: 'number', minimum: 0, maximum: 1, description: 'how well the output does, from 0 (worst) to 1 (best)' },
    boolean: { type: 'boolean', description: 'whether the output passes' },
    categorical: { type: 'string', enum: judge.categories, description: 'the category the output belongs to' },
  };
  return {
    type: 'object',
    properties: { score: score[judge.scoreType], reasoning: { type: 'string', description: 'why, in a few sentences' } },
    required: ['score', 'reasoning'],
    additionalProperties: false,
  };
}

/** The name of the structured answer (OpenAI's `json_schema.name`). */
const ANSWER_NAME = 'judgement';

/** `POST {baseUrl}/chat/completions`'s body: the compiled messages, asking for a structured answer. */
export function judgeRequestBody(judge: JudgeSettings, messages: ChatMessage[]): JsonObject {
  return {
    model: judge.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    response_format: { type: 'json_schema', json_schema: { name: ANSWER_NAME, strict: true, schema: judgeAnswerSchema(judge) } },
  };
}

/** The URL of a connection's chat completions: `{baseUrl}/chat/completions`, whether or not the base ends with a slash. */
export const chatCompletionsUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '')}/chat/completions`;

/** What the judge's reply says about its own call: the model that answered and the tokens it used. */
export interface JudgeUsage {
  model: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

/** The score a judge gave, as it is stored: a number (numeric; boolean as 1/0 with its pass) or a category. */
export type JudgeScore =
  | { dataType: 'NUMERIC'; value: number; pass: boolean | null; reasoning: string | null }
  | { dataType: 'CATEGORICAL'; value: string; pass: null; reasoning: string | null };

export type JudgeReading = { ok: true; score: JudgeScore; usage: JudgeUsage } | { ok: false; error: string; usage: JudgeUsage };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2 ** 31 - 1 ? v : null);
const shown = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** JSON in a model's text, also inside a Markdown code fence, which models add though asked for JSON. */
function parseJsonText(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return JSON.parse(fenced ? fenced[1] : text);
}

/** The answer object of a reply's first choice: a tool call's arguments, else the message's content, as JSON. */
function answerOf(message: Record<string, unknown>): { ok: true; answer: unknown } | { ok: false; error: string } {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const call: unknown = calls[0];
  if (isRecord(call) && isRecord(call.function) && typeof call.function.arguments === 'string') {
    try {
      return { ok: true, answer: JSON.parse(call.function.arguments) };
    } catch {
      return { ok: false, error: `the tool call's arguments are not JSON: ${shown(call.function.arguments)}` };
    }
  }
  if (typeof message.content === 'string') {
    try {
      return { ok: true, answer: parseJsonText(message.content) };
    } catch {
      return { ok: false, error: `the answer is not JSON: ${shown(message.content)}` };
    }
  }
  if (typeof message.refusal === 'string') return { ok: false, error: `the model refused: ${shown(message.refusal)}` };
  return { ok: false, error: 'the reply has neither content nor a tool call' };
}

/** The score of an answer `{score, reasoning}` by the judge's score type, or what is wrong with it. */
function scoreOf(answer: unknown, judge: Pick<JudgeSettings, 'scoreType' | 'categories'>): JudgeScore | string {
  if (!isRecord(answer)) return 'the answer is not a JSON object with score and reasoning';
  const reasoning = typeof answer.reasoning === 'string' ? answer.reasoning.slice(0, LIMITS.reasonLength) : null;
  const { score } = answer;
  switch (judge.scoreType) {
    case 'numeric':
      if (typeof score !== 'number' || !Number.isFinite(score))
        return `score must be a number from 0 to 1, got ${shown(JSON.stringify(score) ?? 'nothing')}`;
      if (score < 0 || score > 1) return `score ${score} is out of range: it must be from 0 to 1`;
      return { dataType: 'NUMERIC', value: score, pass: null, reasoning };
    case 'boolean':
      if (typeof score !== 'boolean') return `score must be true or false, got ${shown(JSON.stringify(score) ?? 'nothing')}`;
      return { dataType: 'NUMERIC', value: score ? 1 : 0, pass: score, reasoning };
    case 'categorical':
      if (typeof score !== 'string' || !judge.categories.includes(score))
        return `score must be one of ${judge.categories.map((c) => JSON.stringify(c)).join(', ')}, got ${shown(JSON.stringify(score) ?? 'nothing')}`;
      return { dataType: 'CATEGORICAL', value: score, pass: null, reasoning };
  }
}

/**
 * Reads a chat completion (HTTP 2xx body) into the judge's score: the answer as the message's
 * content (JSON, which structured output gives) or as a tool call's arguments of the same shape.
 * Anything else, a score out of range included, is an unreadable reply and no score.
 */
export function readJudgeReply(body: string, judge: Pick<JudgeSettings, 'scoreType' | 'categories'>): JudgeReading {
  let reply: unknown;
  try {
    reply = JSON.parse(body);
  } catch {
    return {
      ok: false,
      error: `the reply is not JSON: ${shown(body)}`,
      usage: { model: null, promptTokens: null, completionTokens: null },
    };
  }
  const r = isRecord(reply) ? reply : {};
  const usage: JudgeUsage = {
    model: typeof r.model === 'string' ? r.model.slice(0, LIMITS.judgeModelLength) : null,
    promptTokens: isRecord(r.usage) ? count(r.usage.prompt_tokens) : null,
    completionTokens: isRecord(r.usage) ? count(r.usage.completion_tokens) : null,
  };
  const choice: unknown = Array.isArray(r.choices) ? r.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) return { ok: false, error: 'the reply has no choices[0].message', usage };
  const answer = answerOf(choice.message);
  if (!answer.ok) return { ok: false, error: answer.error, usage };
  const score = scoreOf(answer.answer, judge);
  return typeof score === 'string' ? { ok: false, error: score, usage } : { ok: true, score, usage };
}

/** What a judge's call came to: its score, or why there is none (`reason`, with the details in `error`). */
export type JudgeOutcome =
  { ok: true; score: JudgeScore; usage: JudgeUsage } | { ok: false; reason: EvalRunReason; error: string; usage: JudgeUsage };

const NO_USAGE: JudgeUsage = { model: null, promptTokens: null, completionTokens: null };

/**
 * The outcome of a judge's final call: a 2xx reply read by `readJudgeReply`; an HTTP error, no
 * answer or a call that could not be made is a failed call (no score, unlike a webhook's SPEC
 * 6.1 rule 2: a judge that cannot score says nothing about the output).
 */
export function judgeOutcomeOf(
  outcome: CallOutcome,
  attempts: number,
  judge: Pick<JudgeSettings, 'scoreType' | 'categories'>,
): JudgeOutcome {
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  const failed = (error: string, usage = NO_USAGE): JudgeOutcome => ({
    ok: false,
    reason: EVAL_RUN_REASONS.callFailed,
    error: error.slice(0, LIMITS.reasonLength),
    usage,
  });
  switch (outcome.kind) {
    case 'unsendable':
      return failed(`judge call could not be made: ${outcome.message}`);
    case 'network':
      return failed(`judge call failed after ${tries}: ${outcome.message}`);
    case 'answer': {
      if (outcome.status < 200 || outcome.status > 299)
        return failed(`judge answered HTTP ${outcome.status} after ${tries}: ${shown(outcome.body)}`);
      const read = readJudgeReply(outcome.body, judge);
      return read.ok
        ? read
        : { ok: false, reason: EVAL_RUN_REASONS.replyUnreadable, error: read.error.slice(0, LIMITS.reasonLength), usage: read.usage };
    }
  }
}

/** What a judge's call cost, priced by `prices` (the built-in table) for the model that answered, else the one asked. */
export function judgeCallRecord(usage: JudgeUsage, askedModel: string, atMs: number, prices: PriceTable): JudgeCallRecord {
  const model = usage.model ?? askedModel;
  const definition = prices.definitionAt(model, atMs);
  const known = usage.promptTokens !== null && usage.completionTokens !== null;
  const cost =
    definition && known
      ? costOf({ [USAGE_TYPES.input]: usage.promptTokens!, [USAGE_TYPES.output]: usage.completionTokens! }, definition.prices).total
      : null;
  return { model, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, cost };
}
