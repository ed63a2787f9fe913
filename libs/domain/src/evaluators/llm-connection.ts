import { validationError } from '../errors';
import { UNSTORABLE_TEXT, isStorableText } from '../json/sanitize';
import { type JsonObject, isJsonObject } from '../json/types';
import { EVALUATOR_LIMITS as LIMITS } from '../limits';
import { ClosedDto, type FieldRule, Optional, ruleOf, schemaOf, validateDto } from '../validation';
import { type EvaluatorValidationOptions, headers, refuseUrlOfDeployment, url } from './validate-evaluator';

/**
 * An OpenAI-compatible endpoint of a project, which LLM judges call (issue 29). Its API key and
 * header values are secrets: stored sealed, sent only to the endpoint, never in an answer.
 */
export interface LlmConnection {
  id: string;
  projectId: string;
  name: string;
  baseUrl: string;
  /** The names of its extra headers; their values are never shown. */
  headerNames: string[];
  createdAt: string;
  updatedAt: string;
}

/** A connection's fields with its secrets, as a client gives them. */
export interface LlmConnectionSettings {
  name: string;
  baseUrl: string;
  apiKey: string;
  headers: Record<string, string>;
}

export type LlmConnectionPatch = Partial<LlmConnectionSettings>;

/** What a judge call needs and nobody else may read. */
export interface LlmConnectionSecrets {
  apiKey: string;
  headers: Record<string, string>;
}

const name: FieldRule = {
  read: (v) => (typeof v === 'string' ? v.trim() : v),
  ...ruleOf(
    (v) => {
      if (typeof v !== 'string' || !v || v.length > LIMITS.nameLength)
        return `must be a non-blank string of at most ${LIMITS.nameLength} characters`;
      return isStorableText(v) ? null : UNSTORABLE_TEXT;
    },
    { type: 'string', minLength: 1, maxLength: LIMITS.nameLength },
  ),
};

/** What an HTTP header value can carry (it is sent as `Authorization: Bearer <key>`). */
const API_KEY = /^[\x21-\x7e]+$/;
const apiKey = ruleOf(
  (v) =>
    typeof v === 'string' && v.length <= LIMITS.headerValueLength && API_KEY.test(v)
      ? null
      : `must be a non-empty string of at most ${LIMITS.headerValueLength} printable ASCII characters without spaces`,
  { type: 'string', minLength: 1, maxLength: LIMITS.headerValueLength },
);

/** Headers the judge call sets itself. */
const CALL_HEADERS = new Set(['authorization']);

@ClosedDto()
class LlmConnectionFields {
  @Optional(name) name?: string;
  @Optional(url) baseUrl?: string;
  @Optional(apiKey) apiKey?: string;
  @Optional(headers) headers?: Record<string, string>;
}

const FIELDS = Object.keys(schemaOf(LlmConnectionFields).properties ?? {});

type Options = Pick<EvaluatorValidationOptions, 'requireHttps' | 'refuseNonPublicHosts'>;

/**
 * A connection from a client: every rule checked (the base URL by the same rules as a webhook's
 * URL, SSRF included; headers as an evaluator's), or, for an update (`partial`), the fields given.
 * Throws a validation error naming the field.
 */
export function validateLlmConnectionInput(input: unknown, options: Options & { partial: false }): LlmConnectionSettings;
export function validateLlmConnectionInput(input: unknown, options: Options & { partial: true }): LlmConnectionPatch;
export function validateLlmConnectionInput(
  input: unknown,
  options: Options & { partial: boolean },
): LlmConnectionSettings | LlmConnectionPatch {
  if (!isJsonObject(input)) throw validationError(`must be an object with ${FIELDS.join(', ')}`);
  const checked = validateDto(LlmConnectionFields, input as JsonObject, '');
  if (!checked.ok) throw validationError(checked.message);
  const fields = { ...checked.value };
  if (fields.baseUrl !== undefined) refuseUrlOfDeployment(fields.baseUrl, options, 'baseUrl');
  const reserved = Object.keys(fields.headers ?? {}).find((h) => CALL_HEADERS.has(h.toLowerCase()));
  if (reserved) throw validationError(`headers.${reserved}: is set by the judge call itself from apiKey`);
  if (options.partial) {
    if (!Object.keys(fields).length) throw validationError(`nothing to change: give at least one of ${FIELDS.join(', ')}`);
    return fields;
  }
  for (const required of ['name', 'baseUrl', 'apiKey'] as const)
    if (fields[required] === undefined) throw validationError(`${required}: is required`);
  return { name: fields.name!, baseUrl: fields.baseUrl!, apiKey: fields.apiKey!, headers: fields.headers ?? {} };
}
