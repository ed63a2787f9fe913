/**
 * The structural checks every OTLP/JSON signal shares (proto3 JSON: unknown fields ignored,
 * `null` an absent field): a problem list with paths, optional fields by type, and attribute
 * lists with their AnyValues, checked without recursion.
 */
// From their modules, not the barrel: a barrel import is read through a getter on every call (issue 25).
import { DomainError } from '@app/domain/errors';
import { MAX_JSON_DEPTH, TELEMETRY_RANGES } from '@app/domain/limits';
import { isJsonObject } from '@app/domain/json/types';
import { toIso } from '@app/domain/time';
import { isBase64, isDouble, isInt64, unixNanoTextOf } from './otlp-wire';

/** More problems than this are counted, not listed: the message stays readable. */
export const MAX_LISTED_PROBLEMS = 20;

/** AnyValue nesting (arrays and kvlists) beyond this is refused; decoding stops at the same depth. */
export const MAX_ANY_VALUE_DEPTH = MAX_JSON_DEPTH;

export class Problems {
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

export type Obj = Record<string, unknown>;

export const isAbsent = (value: unknown): value is undefined | null => value === undefined || value === null;
export const isObj = (value: unknown): value is Obj => isJsonObject(value);

/** An optional object: its value, or null when absent or (with a problem) not an object. */
export function optionalObject(value: unknown, path: string, problems: Problems): Obj | null {
  if (isAbsent(value)) return null;
  if (isObj(value)) return value;
  problems.add(path, 'must be an object');
  return null;
}

/** An optional array: its items, or none when absent or (with a problem) not an array. */
export function optionalArray(value: unknown, path: string, problems: Problems): readonly unknown[] {
  if (isAbsent(value)) return [];
  if (Array.isArray(value)) return value;
  problems.add(path, 'must be an array');
  return [];
}

export function optionalString(value: unknown, path: string, problems: Problems): void {
  if (!isAbsent(value) && typeof value !== 'string') problems.add(path, 'must be a string');
}

/** proto3 JSON allows enum names too, but Spanlog (SPEC 4.2, BAD_INPUTS 10) takes integers only. */
export function optionalEnum(value: unknown, path: string, problems: Problems): void {
  if (isAbsent(value) || (typeof value === 'number' && Number.isInteger(value))) return;
  problems.add(
    path,
    typeof value === 'string' ? `must be an integer, not an enum name (${JSON.stringify(value.slice(0, 40))})` : 'must be an integer',
  );
}

const LATEST_TIME = toIso(TELEMETRY_RANGES.timestampMs.max);

export function optionalUnixNano(value: unknown, path: string, problems: Problems): void {
  if (isAbsent(value) || unixNanoTextOf(value) !== null) return;
  const integral =
    (typeof value === 'string' && /^\d+$/.test(value)) || (typeof value === 'number' && Number.isInteger(value) && value >= 0);
  problems.add(
    path,
    integral
      ? `must be a time no later than ${LATEST_TIME}`
      : 'must be a non-negative integer of nanoseconds since the Unix epoch, as a decimal string or a number',
  );
}

export function requiredHex(value: unknown, digits: 16 | 32, path: string, problems: Problems): void {
  const pattern = digits === 32 ? /^[0-9a-f]{32}$/i : /^[0-9a-f]{16}$/i;
  if (typeof value !== 'string' || !pattern.test(value)) problems.add(path, `must be ${digits} hex characters`);
  else if (/^0+$/.test(value)) problems.add(path, 'must not be all zeros');
}

/**
 * An AnyValue whose arrays or kvlists are still to be checked. Its path is built only for a
 * problem or a nested list: an export has hundreds of values, nearly all well formed, and the
 * paths built for each of them were the largest garbage of a processor's decode (issue 25).
 */
interface PendingValue {
  value: Obj;
  /** The list holding it, and its index there (-1: `within` is the value's own path). */
  within: string;
  index: number;
  /** Whether it is a key-value's `value` (`within[index].value`) rather than an array item. */
  ofKeyValue: boolean;
  depth: number;
}

const pathOf = ({ within, index, ofKeyValue }: Omit<PendingValue, 'value' | 'depth'>): string =>
  index < 0 ? within : `${within}[${index}]${ofKeyValue ? '.value' : ''}`;

/**
 * Attribute lists and the AnyValues under them, with an explicit stack instead of recursion,
 * so no input can exhaust the call stack whatever depth reached this far.
 */
export function checkAttributes(list: unknown, path: string, problems: Problems): void {
  walk(list, path, undefined, problems);
}

/** One AnyValue, such as a log record's body, checked as attribute values are. */
export function checkAnyValue(value: unknown, path: string, problems: Problems): void {
  walk([], path, value, problems);
}

function walk(list: unknown, path: string, root: unknown, problems: Problems): void {
  const stack: PendingValue[] = [];
  /** Checks a value's scalar members now and keeps it for later if it holds a list. */
  const check = (value: unknown, at: Omit<PendingValue, 'value'>) => {
    if (!isObj(value)) return problems.add(pathOf(at), 'must be an object (AnyValue)');
    if (!isAbsent(value.stringValue) && typeof value.stringValue !== 'string')
      problems.add(`${pathOf(at)}.stringValue`, 'must be a string');
    if (!isAbsent(value.boolValue) && typeof value.boolValue !== 'boolean') problems.add(`${pathOf(at)}.boolValue`, 'must be a boolean');
    if (!isAbsent(value.intValue) && !isInt64(value.intValue))
      problems.add(`${pathOf(at)}.intValue`, 'must be a 64-bit integer, as a decimal string or a number');
    if (!isAbsent(value.doubleValue) && !isDouble(value.doubleValue)) problems.add(`${pathOf(at)}.doubleValue`, 'must be a number');
    if (!isAbsent(value.bytesValue) && !isBase64(value.bytesValue)) problems.add(`${pathOf(at)}.bytesValue`, 'must be a base64 string');
    if (isAbsent(value.arrayValue) && isAbsent(value.kvlistValue)) return;
    if (at.depth >= MAX_ANY_VALUE_DEPTH)
      return problems.add(pathOf(at), `must not nest arrays or kvlists more than ${MAX_ANY_VALUE_DEPTH} levels deep`);
    stack.push({ value, ...at });
  };
  const keyValues = (items: unknown, at: string, depth: number) => {
    const list = optionalArray(items, at, problems);
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      if (!isObj(item)) {
        problems.add(`${at}[${i}]`, 'must be an object with a key and a value');
        continue;
      }
      if (typeof item.key !== 'string') problems.add(`${at}[${i}].key`, 'must be a string');
      if (!isAbsent(item.value)) check(item.value, { within: at, index: i, ofKeyValue: true, depth });
    }
  };
  keyValues(list, path, 0);
  if (!isAbsent(root)) check(root, { within: path, index: -1, ofKeyValue: false, depth: 0 });
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, depth } = next;
    const at = pathOf(next);
    const array = optionalObject(value.arrayValue, `${at}.arrayValue`, problems);
    if (array) {
      const within = `${at}.arrayValue.values`;
      const items = optionalArray(array.values, within, problems);
      for (let i = 0; i < items.length; i++) check(items[i], { within, index: i, ofKeyValue: false, depth: depth + 1 });
    }
    const kvlist = optionalObject(value.kvlistValue, `${at}.kvlistValue`, problems);
    if (kvlist) keyValues(kvlist.values, `${at}.kvlistValue.values`, depth + 1);
  }
}

/** Throws VALIDATION_ERROR listing the problems, if there are any. */
export function throwIfAny(problems: Problems): void {
  if (problems.count > 0) throw new DomainError('VALIDATION_ERROR', problems.message());
}

/** An optional InstrumentationScope: its name, version and attributes, as traces and logs carry it. */
export function checkScope(value: unknown, path: string, problems: Problems): void {
  const scope = optionalObject(value, path, problems);
  if (!scope) return;
  optionalString(scope.name, `${path}.name`, problems);
  optionalString(scope.version, `${path}.version`, problems);
  checkAttributes(scope.attributes, `${path}.attributes`, problems);
}

/** The three levels of an OTLP/JSON export's lists: `resourceSpans[].scopeSpans[].spans[]`, `resourceLogs[].scopeLogs[].logRecords[]`. */
export interface ExportLevels {
  resources: string;
  scopes: string;
  items: string;
}

/**
 * Checks that `body` is an OTLP/JSON export request (`requestName`) whose resources and scopes
 * are well formed, hands each item (span, log record) to `checkItem`, and counts the items.
 * Throws VALIDATION_ERROR listing the problems with their paths; never throws anything else.
 */
export function checkExportRequest(
  body: unknown,
  requestName: string,
  levels: ExportLevels,
  checkItem: (item: unknown, path: string, problems: Problems) => void,
): number {
  const problems = new Problems();
  let count = 0;
  if (!isObj(body)) {
    problems.add('request body', `must be an object (${requestName})`);
  } else {
    optionalArray(body[levels.resources], levels.resources, problems).forEach((resourceItem, i) => {
      const path = `${levels.resources}[${i}]`;
      if (!isObj(resourceItem)) return problems.add(path, 'must be an object');
      const resource = optionalObject(resourceItem.resource, `${path}.resource`, problems);
      if (resource) checkAttributes(resource.attributes, `${path}.resource.attributes`, problems);
      optionalArray(resourceItem[levels.scopes], `${path}.${levels.scopes}`, problems).forEach((scopeItem, j) => {
        const here = `${path}.${levels.scopes}[${j}]`;
        if (!isObj(scopeItem)) return problems.add(here, 'must be an object');
        checkScope(scopeItem.scope, `${here}.scope`, problems);
        const items = optionalArray(scopeItem[levels.items], `${here}.${levels.items}`, problems);
        items.forEach((item, k) => checkItem(item, `${here}.${levels.items}[${k}]`, problems));
        count += items.length;
      });
    });
  }
  throwIfAny(problems);
  return count;
}
