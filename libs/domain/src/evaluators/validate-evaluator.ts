import { validationError } from '../errors';
import { UNSTORABLE_TEXT, isStorableText } from '../json/sanitize';
import { EVALUATOR_LIMITS as LIMITS } from '../limits';
import { SPAN_TYPE_PATTERN } from '../telemetry/records';
import type { EvaluatorFilter, EvaluatorPatch, EvaluatorSettings } from './evaluator';
import { isNonPublicHost } from './public-address';
import { SIGNATURE_HEADERS } from './webhook';

export interface EvaluatorValidationOptions {
  /** An update: only the fields given are checked and returned, and no default is filled in. */
  partial: boolean;
  /** SPEC 2.6: the URL must be HTTPS in production. */
  requireHttps: boolean;
  /** Where webhooks may not call private networks (production): the URL must not name such an address. */
  refuseNonPublicHosts: boolean;
}

/** Reads one field's value or throws a validation error naming `path`. */
type Reader<T> = (value: unknown, path: string, options: EvaluatorValidationOptions) => T;
type Readers<T> = { [K in keyof T]-?: Reader<Exclude<T[K], undefined>> };

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
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', ...Object.values(SIGNATURE_HEADERS)]);

const invalid = (path: string, rule: string) => validationError(`${path}: ${rule}`);

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A client's key or name in a message, cut short so that a huge one cannot flood it. */
const shown = (text: string) => JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);

const unique = <T>(values: T[]): T[] => [...new Set(values)];

const integerIn =
  ({ min, max }: { min: number; max: number }): Reader<number> =>
  (value, path) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalid(path, `must be an integer from ${min} to ${max}`);
    return value;
  };

const readName: Reader<string> = (value, path) => {
  const name = typeof value === 'string' ? value.trim() : '';
  if (!name || name.length > LIMITS.nameLength) throw invalid(path, `must be a non-blank string of at most ${LIMITS.nameLength} characters`);
  if (!isStorableText(name)) throw invalid(path, UNSTORABLE_TEXT);
  return name;
};

/** The URL as it will be called (WHATWG-normalized), so what is stored is what is shown and used. */
const readUrl: Reader<string> = (value, path, { requireHttps, refuseNonPublicHosts }) => {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.href.length > LIMITS.urlLength) {
    throw invalid(path, `must be an absolute http or https URL of at most ${LIMITS.urlLength} characters`);
  }
  if (requireHttps && url.protocol !== 'https:') throw invalid(path, 'must be an https URL in production');
  // Credentials in a URL end up in logs and answers; headers are where secrets belong.
  if (url.username || url.password) throw invalid(path, 'must not carry credentials; send them in headers (for example Authorization)');
  // Saved, it would only ever score 0: the call refuses the address (SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS).
  if (refuseNonPublicHosts && isNonPublicHost(url)) {
    throw invalid(path, `must not be a private, loopback, link-local or unspecified address (${url.hostname}): this server calls public addresses only`);
  }
  return url.href;
};

const readHeaders: Reader<Record<string, string>> = (value, path) => {
  if (!isRecord(value)) throw invalid(path, 'must be an object of header names to string values');
  const entries = Object.entries(value);
  if (entries.length > LIMITS.headers) throw invalid(path, `must hold at most ${LIMITS.headers} headers`);
  const seen = new Set<string>();
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of entries) {
    if (name.length > LIMITS.headerNameLength) throw invalid(path, `header names must be at most ${LIMITS.headerNameLength} characters (${shown(name)})`);
    if (!HTTP_TOKEN.test(name)) throw invalid(path, `${shown(name)} is not a valid HTTP header name`);
    const at = `${path}.${name}`;
    const key = name.toLowerCase();
    if (RESERVED_HEADERS.has(key)) throw invalid(at, 'is set by the evaluator call itself');
    // Header names are case-insensitive: two spellings would be sent as one header, or refused.
    if (seen.has(key)) throw invalid(at, 'is given twice (header names are case-insensitive)');
    seen.add(key);
    if (typeof headerValue !== 'string' || headerValue.length > LIMITS.headerValueLength || INVALID_HEADER_VALUE.test(headerValue)) {
      throw invalid(at, `must be a string of at most ${LIMITS.headerValueLength} Latin-1 characters without control characters such as CR, LF or NUL`);
    }
    headers[name] = headerValue;
  }
  return headers;
};

const readSpanTypes: Reader<string[]> = (value, path) => {
  if (!Array.isArray(value) || !value.length) throw invalid(path, 'must be a non-empty array of span types such as LLM, TOOL or AGENT');
  const types = value.map((item, i) => {
    const type = typeof item === 'string' ? item.trim().toUpperCase() : '';
    if (!SPAN_TYPE_PATTERN.test(type)) {
      throw invalid(`${path}[${i}]`, 'must be a span type: AGENT, TOOL, LLM, RETRIEVAL, CHAIN, EMBEDDING, EVENT, CUSTOM or another upper-case word of at most 64 characters');
    }
    return type;
  });
  return unique(types);
};

const readNames: Reader<string[]> = (value, path) => {
  if (!Array.isArray(value) || value.length > LIMITS.filterNames) throw invalid(path, `must be an array of at most ${LIMITS.filterNames} span names`);
  const names = value.map((item, i) => {
    if (typeof item !== 'string' || !item) throw invalid(`${path}[${i}]`, 'must be a non-empty string');
    if (!isStorableText(item)) throw invalid(`${path}[${i}]`, UNSTORABLE_TEXT);
    return item;
  });
  return unique(names);
};

const readSampleRate: Reader<number> = (value, path) => {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw invalid(path, 'must be a number from 0 to 1');
  return value;
};

const readEnabled: Reader<boolean> = (value, path) => {
  if (typeof value !== 'boolean') throw invalid(path, 'must be true or false');
  return value;
};

const FILTER_READERS: Readers<EvaluatorFilter> = { spanTypes: readSpanTypes, names: readNames, sampleRate: readSampleRate };

/** The members of a filter that were given; defaults come in `withDefaults`, so an update changes only these. */
const readFilter: Reader<Partial<EvaluatorFilter>> = (value, path, options) => readFields(value, FILTER_READERS, path, options);

const READERS: Readers<EvaluatorPatch> = {
  name: readName,
  url: readUrl,
  headers: readHeaders,
  timeoutMs: integerIn(LIMITS.timeoutMs),
  retries: integerIn(LIMITS.retries),
  filter: readFilter,
  enabled: readEnabled,
};

/**
 * The fields of `value` that are given, each read by its reader; an unknown field is refused
 * by name, so a typo (`timeout`) is not silently ignored. `path` is null at the top level.
 */
function readFields<T extends object>(value: unknown, readers: Readers<T>, path: string | null, options: EvaluatorValidationOptions): Partial<T> {
  const keys = Object.keys(readers) as (keyof T & string)[];
  const prefix = path ? `${path}: ` : '';
  if (!isRecord(value)) throw validationError(`${prefix}must be an object with ${keys.join(', ')}`);
  const unknown = Object.keys(value).filter((key) => !(keys as string[]).includes(key));
  if (unknown.length) {
    throw validationError(`${prefix}unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map(shown).join(', ')}; the fields are ${keys.join(', ')}`);
  }
  const fields: Partial<T> = {};
  for (const key of keys) {
    // CONTRACT "General": an optional field sent as null is absent.
    if (value[key] !== undefined && value[key] !== null) fields[key] = readers[key](value[key], path ? `${path}.${key}` : key, options);
  }
  return fields;
}

/** SPEC 2.6 and CONTRACT "Webhook evaluators": the defaults of everything left out. */
function withDefaults({ name, url, headers, timeoutMs, retries, filter, enabled }: EvaluatorPatch): EvaluatorSettings {
  if (name === undefined) throw invalid('name', 'is required');
  if (url === undefined) throw invalid('url', 'is required');
  return {
    name,
    url,
    headers: headers ?? {},
    timeoutMs: timeoutMs ?? LIMITS.timeoutMs.default,
    retries: retries ?? LIMITS.retries.default,
    filter: {
      spanTypes: filter?.spanTypes ?? [...LIMITS.defaultSpanTypes],
      names: filter?.names ?? [],
      sampleRate: filter?.sampleRate ?? DEFAULT_SAMPLE_RATE,
    },
    enabled: enabled ?? true,
  };
}

/**
 * An evaluator's configuration from a client (SPEC 2.6, 8.6): every rule checked, span types
 * upper-cased, defaults filled in; or, for an update (`partial`), only the fields given.
 * Throws a validation error whose message starts with the path of the field at fault
 * (`timeoutMs: …`, `filter.sampleRate: …`).
 */
export function validateEvaluatorInput(input: unknown, options: EvaluatorValidationOptions & { partial: false }): EvaluatorSettings;
export function validateEvaluatorInput(input: unknown, options: EvaluatorValidationOptions & { partial: true }): EvaluatorPatch;
export function validateEvaluatorInput(input: unknown, options: EvaluatorValidationOptions): EvaluatorSettings | EvaluatorPatch {
  const fields = readFields(input, READERS, null, options);
  if (!options.partial) return withDefaults(fields);
  if (!Object.keys(fields).length) throw validationError(`nothing to change: give at least one of ${Object.keys(READERS).join(', ')}`);
  return fields;
}
