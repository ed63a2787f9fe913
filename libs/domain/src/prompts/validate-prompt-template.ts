import { validationError } from '../errors';
import { unstorableTextAt } from '../json/sanitize';
import { type JsonObject, isJsonObject } from '../json/types';
import { PROMPT_TEMPLATE_LIMITS as LIMITS } from '../limits';
import { decodeCursor } from '../reads/cursor';
import { type FieldRefusal, type JsonSchema, Optional, type Problem, Required, ruleOf, validateDto } from '../validation';
import { type ChatMessage, LATEST_LABEL, type PromptPick, type PromptVersionInput } from './prompt-template';

/**
 * Letters and digits of any script, combining marks, spaces and `_ - . / : @ +`, starting with
 * a letter or digit: readable in a URL, a shell and a log line, and never a control character
 * (NUL included) or an unpaired surrogate.
 */
const NAME = /^[\p{L}\p{N}][\p{L}\p{M}\p{N} _.\-/:@+]*$/u;
const NAME_RULE = `must be 1 to ${LIMITS.nameLength} characters: letters, digits, spaces and _ - . / : @ +, starting with a letter or digit and not ending with a space`;
const isPromptName = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= LIMITS.nameLength && NAME.test(value) && !value.endsWith(' ');
const LABEL = /^[a-z0-9][a-z0-9_.-]*$/;
const LABEL_RULE = `must be 1 to ${LIMITS.labelLength} characters of a-z, 0-9 and _ - ., starting with a letter or digit`;
const ROLE = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ROLE_RULE = `must be 1 to ${LIMITS.roleLength} characters of letters, digits, _ and -, starting with a letter (system, user, assistant …)`;
const INTEGER = /^[1-9][0-9]*$/;
/** The `version` column is a Postgres integer. */
const MAX_VERSION = 2 ** 31 - 1;

const invalid = (path: string, rule: string) => validationError(`${path}: ${rule}`);

function unstorable(value: unknown, path: string): FieldRefusal | null {
  const at = unstorableTextAt(value, path);
  return at === null ? null : { path: at, message: 'must not contain NUL (\\u0000) or an unpaired UTF-16 surrogate' };
}

export function readPromptName(value: unknown, path = 'name'): string {
  if (!isPromptName(value)) throw invalid(path, NAME_RULE);
  return value;
}

/** A label a client sets: `latest` is computed, never set. */
function labelProblem(value: unknown): string | null {
  if (value === LATEST_LABEL) return `"${LATEST_LABEL}" is reserved: it always points at the newest version`;
  if (typeof value !== 'string' || value.length > LIMITS.labelLength || !LABEL.test(value)) return LABEL_RULE;
  return null;
}

function readLabel(value: unknown, path: string): string {
  const problem = labelProblem(value);
  if (problem) throw invalid(path, problem);
  return value as string;
}

function labelsProblem(value: unknown): Problem {
  if (!Array.isArray(value) || value.length > LIMITS.labels) return `must be an array of at most ${LIMITS.labels} labels`;
  const at = value.findIndex((label) => labelProblem(label) !== null);
  return at < 0 ? null : { path: `[${at}]`, message: labelProblem(value[at]) as string };
}

function messageProblem(value: unknown): FieldRefusal | null {
  if (!isJsonObject(value)) return { path: '', message: 'must be an object with role and content' };
  const { role, content } = value;
  if (typeof role !== 'string' || role.length > LIMITS.roleLength || !ROLE.test(role)) return { path: '.role', message: ROLE_RULE };
  if (typeof content !== 'string') return { path: '.content', message: 'must be a string' };
  return unstorable(content, '.content');
}

const TEMPLATE_RULE = `is required: a non-empty string, or an array of 1 to ${LIMITS.messages} chat messages {role, content}`;

function templateProblem(value: unknown): Problem {
  if (typeof value === 'string') return value ? unstorable(value, '') : TEMPLATE_RULE;
  if (!Array.isArray(value) || !value.length || value.length > LIMITS.messages) return TEMPLATE_RULE;
  for (let i = 0; i < value.length; i++) {
    const problem = messageProblem(value[i]);
    if (problem) return { path: `[${i}]${problem.path}`, message: problem.message };
  }
  return null;
}

const configProblem = (value: unknown): Problem => (isJsonObject(value) ? unstorable(value, '') : 'must be an object');

const commitMessageProblem = (value: unknown): Problem =>
  typeof value !== 'string' || value.length > LIMITS.commitMessageLength
    ? `must be a string of at most ${LIMITS.commitMessageLength} characters`
    : unstorable(value, '');

const chatMessageSchema: JsonSchema = {
  type: 'object',
  properties: { role: { type: 'string', minLength: 1, maxLength: LIMITS.roleLength, pattern: ROLE.source }, content: { type: 'string' } },
  required: ['role', 'content'],
};

/** The body of POST /api/v1/prompt-templates; unknown fields are ignored, and so are a chat message's. */
export class PromptVersionBody {
  @Required({
    test: isPromptName,
    message: NAME_RULE,
    schema: { type: 'string', minLength: 1, maxLength: LIMITS.nameLength, pattern: NAME.source },
  })
  name: string;
  @Required(
    ruleOf(templateProblem, {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', minItems: 1, maxItems: LIMITS.messages, items: chatMessageSchema },
      ],
    }),
  )
  template: string | ChatMessage[];
  @Optional(
    ruleOf(labelsProblem, {
      type: 'array',
      maxItems: LIMITS.labels,
      items: { type: 'string', maxLength: LIMITS.labelLength, pattern: LABEL.source },
    }),
  )
  labels?: string[];
  @Optional(ruleOf(configProblem, { type: 'object' })) config?: JsonObject;
  @Optional(ruleOf(commitMessageProblem, { type: 'string', maxLength: LIMITS.commitMessageLength })) commitMessage?: string;
}

/**
 * The body of POST /api/v1/prompt-templates (CONTRACT "Prompt templates"), checked whole; a
 * 400 names the first field at fault (`template[2].role: …`). Labels come back sorted and
 * without duplicates.
 */
export function validatePromptVersionInput(body: unknown): PromptVersionInput {
  if (!isJsonObject(body)) throw validationError('body must be an object with name and template');
  const checked = validateDto(PromptVersionBody, body, '');
  if (!checked.ok) throw validationError(checked.message);
  const { name, template, labels, config, commitMessage } = checked.value;
  return {
    name,
    template: typeof template === 'string' ? template : template.map(({ role, content }) => ({ role, content })),
    labels: [...new Set(labels ?? [])].sort(),
    config: config ?? {},
    commitMessage: commitMessage ?? null,
  };
}

/** What GET /api/v1/prompt-templates asks for. */
export type PromptTemplateQuery =
  { kind: 'list'; limit: number; after: string | null } | { kind: 'resolve'; name: string; pick: PromptPick };

/** A query parameter given once, as text; an empty one is absent, as in the trace list. */
function param(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw invalid(name, 'must be given once');
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function readLimit(raw: string | undefined): number {
  const { min, max, default: fallback } = LIMITS.list;
  if (raw === undefined) return fallback;
  const limit = INTEGER.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= min && limit <= max)) throw invalid('limit', `must be an integer from ${min} to ${max}`);
  return limit;
}

function readPick(version: string | undefined, label: string | undefined): PromptPick {
  if (version !== undefined && label !== undefined) throw validationError('version, label: give one of them, not both');
  if (version !== undefined) {
    const n = INTEGER.test(version) ? Number(version) : Number.NaN;
    if (!(n <= MAX_VERSION)) throw invalid('version', 'must be a positive integer');
    return { by: 'version', version: n };
  }
  if (label !== undefined) return { by: 'label', label: label === LATEST_LABEL ? label : readLabel(label, 'label') };
  return { by: 'default' };
}

/**
 * The query of GET /api/v1/prompt-templates: without `name` a page of the list (`limit`
 * 1–100, default 50; `cursor`), with it one version (`version` or `label`, not both; else
 * `production` when a version has it, else `latest`). A 400 names the parameter at fault.
 */
export function parsePromptTemplateQuery(query: Record<string, unknown>): PromptTemplateQuery {
  const name = param(query, 'name');
  const version = param(query, 'version');
  const label = param(query, 'label');
  if (name === undefined) {
    if (version !== undefined || label !== undefined) throw invalid('name', 'is required with version or label');
    return { kind: 'list', ...parsePromptListQuery(query) };
  }
  return { kind: 'resolve', ...parsePromptResolve(name, query) };
}

/** A page of the list: `limit` 1–100 (default 50) names after `cursor`, the opaque position of the previous page's end. */
export function parsePromptListQuery(query: Record<string, unknown>): { limit: number; after: string | null } {
  const cursor = param(query, 'cursor');
  return {
    limit: readLimit(param(query, 'limit')),
    after: cursor === undefined ? null : decodeCursor<[string]>(cursor, [isPromptName])[0],
  };
}

/** Which version of `name` a resolve asks for: `version` or `label` (`latest` included), not both, else the default pick. */
export function parsePromptResolve(name: string, query: Record<string, unknown>): { name: string; pick: PromptPick } {
  return { name: readPromptName(name), pick: readPick(param(query, 'version'), param(query, 'label')) };
}
