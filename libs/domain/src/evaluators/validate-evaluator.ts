import { validationError } from '../errors';
import { UNSTORABLE_TEXT, isStorableText } from '../json/sanitize';
import type { JsonObject } from '../json/types';
import { EVALUATOR_LIMITS as LIMITS } from '../limits';
import { SPAN_TYPE_PATTERN } from '../telemetry/records';
import {
  ClosedDto,
  type FieldRule,
  Optional,
  type Problem,
  bool,
  integer,
  nested,
  oneOf,
  ruleOf,
  schemaOf,
  validateDto,
} from '../validation';
import {
  EVALUATOR_KINDS,
  EVALUATOR_TARGETS,
  type EvaluatorFilter,
  type EvaluatorKind,
  type EvaluatorPatch,
  type EvaluatorSettings,
  type EvaluatorTarget,
} from './evaluator';
import { isNonPublicHost } from './public-address';
import { type JudgeFields, judgeRule, judgeSettingsOf } from './validate-judge';
import { SIGNATURE_HEADERS } from './webhook';

export interface EvaluatorValidationOptions {
  /** An update: only the fields given are checked and returned, and no default is filled in. */
  partial: boolean;
  /** SPEC 2.6: the URL must be HTTPS in production. */
  requireHttps: boolean;
  /** Where webhooks may not call private networks (production): the URL must not name such an address. */
  refuseNonPublicHosts: boolean;
}

/** CONTRACT "Webhook evaluators": filter defaults. */
const DEFAULT_SAMPLE_RATE = 1;
/** RFC 9110 5.6.2: a header name is a token. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * What Node's HTTP client refuses in a header value (`validateHeaderValue`): control
 * characters (a CR or LF would start another header) and anything beyond Latin-1. Accepted
 * once, such a value made every call of the evaluator throw.
 */
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** Headers the evaluator call sets itself: a configured value would corrupt the request's framing, or its signature. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  ...Object.values(SIGNATURE_HEADERS),
]);

const invalid = (path: string, rule: string) => validationError(`${path}: ${rule}`);

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A client's key or name in a message, cut short so that a huge one cannot flood it. */
const shown = (text: string) => JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);

const unique = <T>(values: T[]): T[] => [...new Set(values)];

const NAME_RULE = `must be a non-blank string of at most ${LIMITS.nameLength} characters`;
const name: FieldRule = {
  read: (v) => (typeof v === 'string' ? v.trim() : v),
  ...ruleOf(
    (v) => {
      if (typeof v !== 'string' || !v || v.length > LIMITS.nameLength) return NAME_RULE;
      return isStorableText(v) ? null : UNSTORABLE_TEXT;
    },
    { type: 'string', minLength: 1, maxLength: LIMITS.nameLength },
  ),
};

/** The URL as it will be called (WHATWG-normalized), so what is stored is what is shown and used. */
export const url: FieldRule = {
  read: (v) => (typeof v === 'string' && URL.canParse(v) ? new URL(v).href : v),
  ...ruleOf(
    (v) => {
      const parsed = typeof v === 'string' && URL.canParse(v) ? new URL(v) : null;
      if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.href.length > LIMITS.urlLength) {
        return `must be an absolute http or https URL of at most ${LIMITS.urlLength} characters`;
      }
      // Credentials in a URL end up in logs and answers; headers are where secrets belong.
      return parsed.username || parsed.password ? 'must not carry credentials; send them in headers (for example Authorization)' : null;
    },
    { type: 'string', format: 'uri', maxLength: LIMITS.urlLength },
  ),
};

/** The deployment's rules for a URL the server will call (`url` checked the rest); `field` names it in the message. */
export function refuseUrlOfDeployment(
  href: string,
  { requireHttps, refuseNonPublicHosts }: Pick<EvaluatorValidationOptions, 'requireHttps' | 'refuseNonPublicHosts'>,
  field = 'url',
): void {
  const parsed = new URL(href);
  if (requireHttps && parsed.protocol !== 'https:') throw invalid(field, 'must be an https URL in production');
  // Saved, it would only ever score 0: the call refuses the address (SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS).
  if (refuseNonPublicHosts && isNonPublicHost(parsed)) {
    throw invalid(
      field,
      `must not be a private, loopback, link-local or unspecified address (${parsed.hostname}): this server calls public addresses only`,
    );
  }
}

function headersProblem(value: unknown): Problem {
  if (!isRecord(value)) return 'must be an object of header names to string values';
  const entries = Object.entries(value);
  if (entries.length > LIMITS.headers) return `must hold at most ${LIMITS.headers} headers`;
  const seen = new Set<string>();
  for (const [headerName, headerValue] of entries) {
    if (headerName.length > LIMITS.headerNameLength)
      return `header names must be at most ${LIMITS.headerNameLength} characters (${shown(headerName)})`;
    if (!HTTP_TOKEN.test(headerName)) return `${shown(headerName)} is not a valid HTTP header name`;
    const at = `.${headerName}`;
    const key = headerName.toLowerCase();
    if (RESERVED_HEADERS.has(key)) return { path: at, message: 'is set by the evaluator call itself' };
    // Header names are case-insensitive: two spellings would be sent as one header, or refused.
    if (seen.has(key)) return { path: at, message: 'is given twice (header names are case-insensitive)' };
    seen.add(key);
    if (typeof headerValue !== 'string' || headerValue.length > LIMITS.headerValueLength || INVALID_HEADER_VALUE.test(headerValue)) {
      return {
        path: at,
        message: `must be a string of at most ${LIMITS.headerValueLength} Latin-1 characters without control characters such as CR, LF or NUL`,
      };
    }
  }
  return null;
}
export const headers = ruleOf(headersProblem, {
  type: 'object',
  maxProperties: LIMITS.headers,
  additionalProperties: { type: 'string', maxLength: LIMITS.headerValueLength },
});

/** The first item of a list a check refuses, as the part of the list at fault. */
function firstItemProblem(items: unknown[], problem: (item: unknown) => string | null): Problem {
  for (let i = 0; i < items.length; i++) {
    const message = problem(items[i]);
    if (message) return { path: `[${i}]`, message };
  }
  return null;
}

const SPAN_TYPE_RULE =
  'must be a span type: AGENT, TOOL, LLM, RETRIEVAL, CHAIN, EMBEDDING, EVENT, CUSTOM or another upper-case word of at most 64 characters';
const spanTypes: FieldRule = {
  read: (v) => (Array.isArray(v) ? v.map((item) => (typeof item === 'string' ? item.trim().toUpperCase() : item)) : v),
  ...ruleOf(
    (v) => {
      if (!Array.isArray(v) || !v.length) return 'must be a non-empty array of span types such as LLM, TOOL or AGENT';
      return firstItemProblem(v, (item) => (typeof item === 'string' && SPAN_TYPE_PATTERN.test(item) ? null : SPAN_TYPE_RULE));
    },
    { type: 'array', minItems: 1, items: { type: 'string', pattern: SPAN_TYPE_PATTERN.source } },
  ),
};

const spanNames = ruleOf(
  (v) => {
    if (!Array.isArray(v) || v.length > LIMITS.filterNames) return `must be an array of at most ${LIMITS.filterNames} span names`;
    return firstItemProblem(v, (item) => {
      if (typeof item !== 'string' || !item) return 'must be a non-empty string';
      return isStorableText(item) ? null : UNSTORABLE_TEXT;
    });
  },
  { type: 'array', maxItems: LIMITS.filterNames, items: { type: 'string', minLength: 1 } },
);

/** Trace tags or environments a trace filter names: any of them matches. */
const traceValues = (what: string) =>
  ruleOf(
    (v) => {
      if (!Array.isArray(v) || v.length > LIMITS.filterValues) return `must be an array of at most ${LIMITS.filterValues} ${what}`;
      return firstItemProblem(v, (item) => {
        if (typeof item !== 'string' || !item) return 'must be a non-empty string';
        return isStorableText(item) ? null : UNSTORABLE_TEXT;
      });
    },
    { type: 'array', maxItems: LIMITS.filterValues, items: { type: 'string', minLength: 1 } },
  );

const sampleRate: FieldRule = {
  test: (v) => typeof v === 'number' && v >= 0 && v <= 1,
  message: 'must be a number from 0 to 1',
  schema: { type: 'number', minimum: 0, maximum: 1 },
};

/** The members of a filter that were given; defaults come in `withDefaults`, so an update changes only these. */
@ClosedDto()
class EvaluatorFilterFields implements Partial<EvaluatorFilter> {
  @Optional(spanTypes) spanTypes?: string[];
  @Optional(spanNames) names?: string[];
  @Optional(sampleRate) sampleRate?: number;
  @Optional(traceValues('trace tags')) tags?: string[];
  @Optional(traceValues('environments')) environments?: string[];
}

const FILTER_FIELDS = Object.keys(schemaOf(EvaluatorFilterFields).properties ?? {});

@ClosedDto()
class EvaluatorFields {
  @Optional(name) name?: string;
  @Optional(oneOf(EVALUATOR_KINDS)) kind?: EvaluatorKind;
  @Optional(url) url?: string;
  @Optional(judgeRule) judge?: JudgeFields;
  @Optional(headers) headers?: Record<string, string>;
  @Optional(integer(LIMITS.timeoutMs)) timeoutMs?: number;
  @Optional(integer(LIMITS.retries)) retries?: number;
  @Optional({ ...nested(EvaluatorFilterFields), message: `must be an object with ${FILTER_FIELDS.join(', ')}` })
  filter?: EvaluatorFilterFields;
  @Optional(bool) enabled?: boolean;
  @Optional(oneOf(EVALUATOR_TARGETS)) target?: EvaluatorTarget;
  /** Meaningful for a trace target only, but kept for any: switching the target back keeps the window chosen. */
  @Optional(integer(LIMITS.quietSeconds)) quietSeconds?: number;
}

const FIELDS = Object.keys(schemaOf(EvaluatorFields).properties ?? {});

/** The fields given, as plain values: span types and names without duplicates. */
function readFields(input: unknown, options: EvaluatorValidationOptions): EvaluatorPatch {
  if (!isRecord(input)) throw validationError(`must be an object with ${FIELDS.join(', ')}`);
  const checked = validateDto(EvaluatorFields, input as JsonObject, '');
  if (!checked.ok) throw validationError(checked.message);
  const { filter, judge: judgeFields, ...fields } = checked.value;
  if (fields.url !== undefined) refuseUrlOfDeployment(fields.url, options);
  if (options.partial && fields.kind !== undefined)
    throw invalid('kind', 'cannot be changed: create an evaluator of the other kind instead');
  let judge: EvaluatorPatch['judge'];
  if (judgeFields !== undefined) {
    const read = judgeSettingsOf(judgeFields);
    if (!read.ok) throw invalid(read.path, read.message);
    judge = read.judge;
  }
  const given = { ...fields, ...(judge && { judge }) };
  if (filter === undefined) return given;
  const { spanTypes: types, names, tags, environments, ...rest } = filter;
  return {
    ...given,
    filter: {
      ...(types && { spanTypes: unique(types) }),
      ...(names && { names: unique(names) }),
      ...(tags && { tags: unique(tags) }),
      ...(environments && { environments: unique(environments) }),
      ...rest,
    },
  };
}

/**
 * The fields a kind takes: a webhook its URL and headers, a judge its `judge` (it calls its
 * connection, with the connection's headers).
 */
function refuseFieldsOfOtherKind(kind: EvaluatorKind, { url, headers, judge }: EvaluatorPatch): void {
  if (kind === 'webhook' && judge !== undefined) throw invalid('judge', 'is only for kind llm-judge');
  if (kind === 'llm-judge' && url !== undefined) throw invalid('url', "is only for kind webhook: a judge calls its connection's base URL");
  if (kind === 'llm-judge' && headers !== undefined)
    throw invalid('headers', "are only for kind webhook: a judge sends its connection's headers");
}

/** SPEC 2.6 and CONTRACT "Webhook evaluators": the defaults of everything left out. */
function withDefaults({
  name,
  kind = 'webhook',
  url,
  judge,
  headers,
  timeoutMs,
  retries,
  filter,
  enabled,
  target,
  quietSeconds,
}: EvaluatorPatch): EvaluatorSettings {
  if (name === undefined) throw invalid('name', 'is required');
  refuseFieldsOfOtherKind(kind, { url, headers, judge });
  if (kind === 'webhook' && url === undefined) throw invalid('url', 'is required');
  if (kind === 'llm-judge' && judge === undefined) throw invalid('judge', 'is required for kind llm-judge');
  const defaults = kind === 'llm-judge' ? LIMITS.judgeDefaults : { timeoutMs: LIMITS.timeoutMs.default, retries: LIMITS.retries.default };
  return {
    name,
    kind,
    url: url ?? null,
    judge: judge ?? null,
    headers: headers ?? {},
    timeoutMs: timeoutMs ?? defaults.timeoutMs,
    retries: retries ?? defaults.retries,
    filter: {
      spanTypes: filter?.spanTypes ?? [...LIMITS.defaultSpanTypes],
      names: filter?.names ?? [],
      sampleRate: filter?.sampleRate ?? DEFAULT_SAMPLE_RATE,
      tags: filter?.tags ?? [],
      environments: filter?.environments ?? [],
    },
    enabled: enabled ?? true,
    target: target ?? 'span',
    quietSeconds: quietSeconds ?? LIMITS.quietSeconds.default,
  };
}

/**
 * An evaluator's configuration from a client (SPEC 2.6, 8.6): every rule checked, span types
 * upper-cased, defaults filled in; or, for an update (`partial`), only the fields given.
 * Throws a validation error whose message starts with the path of the field at fault
 * (`timeoutMs: …`, `filter.sampleRate: …`); an unknown field is refused by name.
 */
export function validateEvaluatorInput(input: unknown, options: EvaluatorValidationOptions & { partial: false }): EvaluatorSettings;
export function validateEvaluatorInput(input: unknown, options: EvaluatorValidationOptions & { partial: true }): EvaluatorPatch;
export function validateEvaluatorInput(input: unknown, options: EvaluatorValidationOptions): EvaluatorSettings | EvaluatorPatch {
  const fields = readFields(input, options);
  if (!options.partial) return withDefaults(fields);
  if (!Object.keys(fields).length) throw validationError(`nothing to change: give at least one of ${FIELDS.join(', ')}`);
  return fields;
}

/** An update's fields against the kind of the evaluator it changes (`validateEvaluatorInput` cannot know it). */
export function checkPatchOfKind(kind: EvaluatorKind, patch: EvaluatorPatch): void {
  refuseFieldsOfOtherKind(kind, patch);
}
