/**
 * Structural check of an OTLP/JSON ExportTraceServiceRequest (OTLP/HTTP JSON encoding,
 * SPEC 4.2, CONTRACT "OTLP", BAD_INPUTS). Unknown fields are ignored, as OTLP requires, so
 * snake_case keys (`resource_spans`) are unknown and an export spelled that way has no spans.
 * `null` is an absent field (proto3 JSON).
 */
import { DomainError, MAX_JSON_DEPTH, TELEMETRY_RANGES, isJsonObject, toIso } from '@app/domain';
import { isBase64, isDouble, isInt64, isLinkSpanHex, isLinkTraceHex, parentRefOf, unixNanoTextOf } from './otlp-wire';

/** More problems than this are counted, not listed: the message stays readable. */
export const MAX_LISTED_PROBLEMS = 20;

/** AnyValue nesting (arrays and kvlists) beyond this is refused; decoding stops at the same depth. */
export const MAX_ANY_VALUE_DEPTH = MAX_JSON_DEPTH;

class Problems {
  readonly listed: string[] = [];
  count = 0;

  add(path: string, message: string): void {
    this.count++;
    if (this.listed.length < MAX_LISTED_PROBLEMS) this.listed.push(`${path}: ${message}`);
  }

  message(): string {
    const more = this.count - this.listed.length;
    return this.listed.join('; ') + (more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : '');
  }
}

type Obj = Record<string, unknown>;

const isAbsent = (value: unknown): value is undefined | null => value === undefined || value === null;
const isObj = (value: unknown): value is Obj => isJsonObject(value);

/** An optional object: its value, or null when absent or (with a problem) not an object. */
function optionalObject(value: unknown, path: string, problems: Problems): Obj | null {
  if (isAbsent(value)) return null;
  if (isObj(value)) return value;
  problems.add(path, 'must be an object');
  return null;
}

/** An optional array: its items, or none when absent or (with a problem) not an array. */
function optionalArray(value: unknown, path: string, problems: Problems): readonly unknown[] {
  if (isAbsent(value)) return [];
  if (Array.isArray(value)) return value;
  problems.add(path, 'must be an array');
  return [];
}

function optionalString(value: unknown, path: string, problems: Problems): void {
  if (!isAbsent(value) && typeof value !== 'string') problems.add(path, 'must be a string');
}

/** proto3 JSON allows enum names too, but Spanlog (SPEC 4.2, BAD_INPUTS 10) takes integers only. */
function optionalEnum(value: unknown, path: string, problems: Problems): void {
  if (isAbsent(value) || (typeof value === 'number' && Number.isInteger(value))) return;
  problems.add(path, typeof value === 'string' ? `must be an integer, not an enum name (${JSON.stringify(value.slice(0, 40))})` : 'must be an integer');
}

const LATEST_TIME = toIso(TELEMETRY_RANGES.timestampMs.max);

function optionalUnixNano(value: unknown, path: string, problems: Problems): void {
  if (isAbsent(value) || unixNanoTextOf(value) !== null) return;
  const integral = (typeof value === 'string' && /^\d+$/.test(value)) || (typeof value === 'number' && Number.isInteger(value) && value >= 0);
  problems.add(path, integral ? `must be a time no later than ${LATEST_TIME}` : 'must be a non-negative integer of nanoseconds since the Unix epoch, as a decimal string or a number');
}

function requiredHex(value: unknown, digits: 16 | 32, path: string, problems: Problems): void {
  const pattern = digits === 32 ? /^[0-9a-f]{32}$/i : /^[0-9a-f]{16}$/i;
  if (typeof value !== 'string' || !pattern.test(value)) problems.add(path, `must be ${digits} hex characters`);
  else if (/^0+$/.test(value)) problems.add(path, 'must not be all zeros');
}

interface PendingValue {
  value: unknown;
  path: string;
  depth: number;
}

/**
 * Attribute lists and the AnyValues under them, with an explicit stack instead of recursion,
 * so no input can exhaust the call stack whatever depth reached this far.
 */
function checkAttributes(list: unknown, path: string, problems: Problems): void {
  const stack: PendingValue[] = [];
  const keyValues = (items: unknown, at: string, depth: number) => {
    optionalArray(items, at, problems).forEach((item, i) => {
      const here = `${at}[${i}]`;
      if (!isObj(item)) return problems.add(here, 'must be an object with a key and a value');
      if (typeof item.key !== 'string') problems.add(`${here}.key`, 'must be a string');
      if (!isAbsent(item.value)) stack.push({ value: item.value, path: `${here}.value`, depth });
    });
  };
  keyValues(list, path, 0);
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, path: at, depth } = next;
    if (!isObj(value)) {
      problems.add(at, 'must be an object (AnyValue)');
      continue;
    }
    if (!isAbsent(value.stringValue) && typeof value.stringValue !== 'string') problems.add(`${at}.stringValue`, 'must be a string');
    if (!isAbsent(value.boolValue) && typeof value.boolValue !== 'boolean') problems.add(`${at}.boolValue`, 'must be a boolean');
    if (!isAbsent(value.intValue) && !isInt64(value.intValue)) problems.add(`${at}.intValue`, 'must be a 64-bit integer, as a decimal string or a number');
    if (!isAbsent(value.doubleValue) && !isDouble(value.doubleValue)) problems.add(`${at}.doubleValue`, 'must be a number');
    if (!isAbsent(value.bytesValue) && !isBase64(value.bytesValue)) problems.add(`${at}.bytesValue`, 'must be a base64 string');
    const nested = !isAbsent(value.arrayValue) || !isAbsent(value.kvlistValue);
    if (nested && depth >= MAX_ANY_VALUE_DEPTH) {
      problems.add(at, `must not nest arrays or kvlists more than ${MAX_ANY_VALUE_DEPTH} levels deep`);
      continue;
    }
    const array = optionalObject(value.arrayValue, `${at}.arrayValue`, problems);
    if (array) {
      optionalArray(array.values, `${at}.arrayValue.values`, problems).forEach((item, i) => {
        stack.push({ value: item, path: `${at}.arrayValue.values[${i}]`, depth: depth + 1 });
      });
    }
    const kvlist = optionalObject(value.kvlistValue, `${at}.kvlistValue`, problems);
    if (kvlist) keyValues(kvlist.values, `${at}.kvlistValue.values`, depth + 1);
  }
}

function checkStatus(value: unknown, path: string, problems: Problems): void {
  const status = optionalObject(value, path, problems);
  if (!status) return;
  optionalEnum(status.code, `${path}.code`, problems);
  optionalString(status.message, `${path}.message`, problems);
}

function checkEvents(value: unknown, path: string, problems: Problems): void {
  optionalArray(value, path, problems).forEach((item, i) => {
    const here = `${path}[${i}]`;
    if (!isObj(item)) return problems.add(here, 'must be an object');
    optionalString(item.name, `${here}.name`, problems);
    optionalUnixNano(item.timeUnixNano, `${here}.timeUnixNano`, problems);
    checkAttributes(item.attributes, `${here}.attributes`, problems);
  });
}

function checkLinks(value: unknown, path: string, problems: Problems): void {
  optionalArray(value, path, problems).forEach((item, i) => {
    const here = `${path}[${i}]`;
    if (!isObj(item)) return problems.add(here, 'must be an object');
    if (!isLinkTraceHex(item.traceId)) problems.add(`${here}.traceId`, 'must be 32 hex characters');
    if (!isLinkSpanHex(item.spanId)) problems.add(`${here}.spanId`, 'must be 16 hex characters');
    optionalString(item.traceState, `${here}.traceState`, problems);
    checkAttributes(item.attributes, `${here}.attributes`, problems);
  });
}

function checkSpan(span: unknown, path: string, problems: Problems): void {
  if (!isObj(span)) return problems.add(path, 'must be an object');
  requiredHex(span.traceId, 32, `${path}.traceId`, problems);
  requiredHex(span.spanId, 16, `${path}.spanId`, problems);
  if (parentRefOf(span.parentSpanId).kind === 'invalid') problems.add(`${path}.parentSpanId`, 'must be empty or 16 hex characters');
  optionalString(span.name, `${path}.name`, problems);
  optionalString(span.traceState, `${path}.traceState`, problems);
  optionalEnum(span.kind, `${path}.kind`, problems);
  optionalUnixNano(span.startTimeUnixNano, `${path}.startTimeUnixNano`, problems);
  optionalUnixNano(span.endTimeUnixNano, `${path}.endTimeUnixNano`, problems);
  checkAttributes(span.attributes, `${path}.attributes`, problems);
  checkEvents(span.events, `${path}.events`, problems);
  checkLinks(span.links, `${path}.links`, problems);
  checkStatus(span.status, `${path}.status`, problems);
}

function checkScopeSpans(item: unknown, path: string, problems: Problems): number {
  if (!isObj(item)) {
    problems.add(path, 'must be an object');
    return 0;
  }
  const scope = optionalObject(item.scope, `${path}.scope`, problems);
  if (scope) {
    optionalString(scope.name, `${path}.scope.name`, problems);
    optionalString(scope.version, `${path}.scope.version`, problems);
    checkAttributes(scope.attributes, `${path}.scope.attributes`, problems);
  }
  const spans = optionalArray(item.spans, `${path}.spans`, problems);
  spans.forEach((span, i) => checkSpan(span, `${path}.spans[${i}]`, problems));
  return spans.length;
}

function checkResourceSpans(item: unknown, path: string, problems: Problems): number {
  if (!isObj(item)) {
    problems.add(path, 'must be an object');
    return 0;
  }
  const resource = optionalObject(item.resource, `${path}.resource`, problems);
  if (resource) checkAttributes(resource.attributes, `${path}.resource.attributes`, problems);
  let spans = 0;
  optionalArray(item.scopeSpans, `${path}.scopeSpans`, problems).forEach((scopeSpans, i) => {
    spans += checkScopeSpans(scopeSpans, `${path}.scopeSpans[${i}]`, problems);
  });
  return spans;
}

/**
 * Checks that `body` is an OTLP/JSON ExportTraceServiceRequest that `otlpToFacts` can take,
 * and counts its spans (an empty export has none). Throws DomainError VALIDATION_ERROR
 * listing every problem with its path, e.g.
 * `resourceSpans[0].scopeSpans[0].spans[3].traceId: must be 32 hex characters`
 * (the first MAX_LISTED_PROBLEMS of them); never throws anything else, whatever the JSON.
 */
export function validateOtlpRequest(body: unknown): { spanCount: number } {
  const problems = new Problems();
  let spanCount = 0;
  if (!isObj(body)) {
    problems.add('request body', 'must be an object (ExportTraceServiceRequest)');
  } else {
    optionalArray(body.resourceSpans, 'resourceSpans', problems).forEach((item, i) => {
      spanCount += checkResourceSpans(item, `resourceSpans[${i}]`, problems);
    });
  }
  if (problems.count > 0) throw new DomainError('VALIDATION_ERROR', problems.message());
  return { spanCount };
}
