import { Allow, IsOptional, ValidateBy, ValidateNested, type ValidationError, ValidationTypes, getMetadataStorage, validateSync } from 'class-validator';
import { isNativeId } from '../ids';
import { type JsonObject, isJsonObject } from '../json/types';
import { MAX_NATIVE_ID_LENGTH, TELEMETRY_RANGES } from '../limits';
import { TIMESTAMP_RULE, parseTimestamp, toIso } from '../time';

/** A DTO class, abstract or not: class-validator and the decorators below key on its constructor. */
type DtoClass<T extends object> = Function & { prototype: T };

/**
 * How one DTO field is read from the client's JSON and checked: one test and one message per
 * field, so that an error reads `batch[3].body.startTime: must be an ISO 8601 timestamp`.
 */
export interface FieldRule {
  /** Given the DTO too, for rules across fields. Absent: any JSON value (input, output, log). */
  readonly test?: (value: unknown, dto: object) => boolean;
  readonly message?: string;
  /** The client's value as the DTO holds it; what it cannot read becomes a value `test` refuses. */
  readonly read?: (value: unknown) => unknown;
  /** The value is a DTO of this class, checked field by field. */
  readonly nested?: DtoClass<object>;
}

interface FieldSpec {
  readonly key: string;
  readonly rule: FieldRule;
  readonly optional: boolean;
}

const declaredFields = new Map<DtoClass<object>, FieldSpec[]>();
/** The name of every class-validator constraint `field` registers, to tell foreign rules apart. */
const FIELD_CONSTRAINT = 'nativeField';

function field(rule: FieldRule, optional: boolean): PropertyDecorator {
  return (target, property) => {
    const key = String(property);
    const cls = target.constructor;
    declaredFields.set(cls, [...(declaredFields.get(cls) ?? []), { key, rule, optional }]);
    const { test, message, nested } = rule;
    const decorators = [
      test ? ValidateBy({ name: FIELD_CONSTRAINT, validator: { validate: (v: unknown, args?: { object: object }) => test(v, args?.object ?? {}) } }, { message }) : Allow(),
    ];
    if (optional) decorators.push(IsOptional());
    if (nested) decorators.push(ValidateNested());
    for (const decorate of decorators) decorate(target, key);
  };
}

/** A field the body must carry (`null` counts as missing). */
export const Required = (rule: FieldRule): PropertyDecorator => field(rule, false);
/** A field the body may carry; `null` is absent (CONTRACT "General"). */
export const Optional = (rule: FieldRule): PropertyDecorator => field(rule, true);

const memo = <V>(compute: (cls: DtoClass<object>) => V) => {
  const cache = new Map<DtoClass<object>, V>();
  return (cls: DtoClass<object>): V => {
    if (!cache.has(cls)) cache.set(cls, compute(cls));
    return cache.get(cls) as V;
  };
};

const ancestry = (cls: DtoClass<object>): DtoClass<object>[] => {
  const chain: DtoClass<object>[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  return chain;
};

/** A class's fields, inherited ones first, each in declaration order. */
const fieldsOf = memo((cls) => ancestry(cls).flatMap((c) => declaredFields.get(c) ?? []));

/**
 * Whether `passes` may stand in for class-validator on a class: it runs only the rules of
 * `Required`/`Optional`, so a class carrying any other rule that can refuse a value (a
 * decorator added by hand, in a subclass, on a nested DTO) is always left to class-validator.
 */
const onlyFieldRules: (cls: DtoClass<object>) => boolean = memo((cls) => {
  const storage = getMetadataStorage();
  const nestedClasses = new Map(fieldsOf(cls).map(({ key, rule }) => [key, rule.nested]));
  return storage.getTargetValidationMetadatas(cls, '', false, false).every((m) => {
    switch (m.type) {
      case ValidationTypes.CUSTOM_VALIDATION:
        return storage.getTargetValidatorConstraints(m.constraintCls).every((c) => c.name === FIELD_CONSTRAINT);
      case ValidationTypes.NESTED_VALIDATION: {
        const nestedClass = nestedClasses.get(m.propertyName);
        return nestedClass !== undefined && onlyFieldRules(nestedClass);
      }
      // These only let class-validator accept more, and whatever `passes` refuses is rechecked.
      case ValidationTypes.CONDITIONAL_VALIDATION:
      case ValidationTypes.WHITELIST:
        return true;
      default:
        return false;
    }
  });
});

/**
 * A DTO holding the client's values by reference, declared fields only: unknown fields are
 * ignored, and input or output of several megabytes is not copied. Not class-transformer's
 * `plainToInstance`: it walks every nested value, throws a TypeError on any object with a
 * `constructor` key and silently drops keys such as `toString` (class-transformer 0.5.1).
 */
export function toDto<T extends object>(cls: DtoClass<T>, plain: JsonObject): T {
  // No constructor call: class fields would start as own properties set to undefined.
  const dto = Object.create(cls.prototype) as Record<string, unknown>;
  for (const { key, rule } of fieldsOf(cls)) {
    // Own properties only: an own `__proto__` key must not lend the body inherited fields.
    if (!Object.hasOwn(plain, key)) continue;
    const value = plain[key];
    if (value !== null) dto[key] = rule.read ? rule.read(value) : value;
  }
  return dto as T;
}

/** The verdict class-validator would give, without its per-call bookkeeping (~10 µs per object). */
function passes(cls: DtoClass<object>, dto: object): boolean {
  for (const { key, rule, optional } of fieldsOf(cls)) {
    const value = (dto as Record<string, unknown>)[key];
    if (value === undefined) {
      if (optional) continue;
      return false;
    }
    if (rule.test && !rule.test(value, dto)) return false;
    if (rule.nested && !passes(rule.nested, value as object)) return false;
  }
  return true;
}

function firstProblem(errors: ValidationError[], path: string): string {
  // class-validator lists a class's own fields before inherited ones; report in declaration order.
  const order = errors[0].target ? fieldsOf(errors[0].target.constructor).map((f) => f.key) : [];
  const first = errors.reduce((a, b) => (order.indexOf(b.property) < order.indexOf(a.property) ? b : a));
  const here = path ? `${path}.${first.property}` : first.property;
  const message = Object.values(first.constraints ?? {})[0];
  if (message !== undefined) return `${here}: ${message}`;
  return first.children?.length ? firstProblem(first.children, here) : `${here}: is invalid`;
}

export type DtoCheck<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Builds and checks a DTO; a failure names the first field at fault under `path`. A valid
 * object, the common case, is confirmed by `passes`; class-validator words every refusal.
 */
export function validateDto<T extends object>(cls: DtoClass<T>, plain: JsonObject, path: string): DtoCheck<T> {
  const dto = toDto(cls, plain);
  if (onlyFieldRules(cls) && passes(cls, dto)) return { ok: true, value: dto };
  const errors = validateSync(dto, { stopAtFirstError: true, validationError: { target: true, value: false } });
  return errors.length === 0 ? { ok: true, value: dto } : { ok: false, message: firstProblem(errors, path) };
}

export const nativeId: FieldRule = { test: isNativeId, message: `must be a string of 1 to ${MAX_NATIVE_ID_LENGTH} characters` };

export const text = (min: number, max: number): FieldRule => ({
  test: (v) => typeof v === 'string' && v.length >= min && v.length <= max,
  message: `must be a string of ${min} to ${max} characters`,
});

/** Free text (status messages, comments): bounded only by the payload limit. */
export const anyText: FieldRule = { test: (v) => typeof v === 'string', message: 'must be a string' };

export const stringList = (maxLength: number): FieldRule => ({
  test: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length <= maxLength),
  message: `must be an array of strings of at most ${maxLength} characters`,
});

const UNREADABLE = Symbol('unreadable timestamp');

/** Held as fixed-width UTC ISO, so that versions compare as text; parsed once. */
export const timestamp: FieldRule = {
  test: (v) => typeof v === 'string',
  message: `must be ${TIMESTAMP_RULE}`,
  read: (v) => {
    const ms = parseTimestamp(v);
    return ms === null ? UNREADABLE : toIso(ms);
  },
};

export const oneOf = (values: readonly string[]): FieldRule => ({
  test: (v) => typeof v === 'string' && values.includes(v),
  message: `must be one of ${values.join(', ')}`,
});

const { spanTokens, spanCost } = TELEMETRY_RANGES;

/** Token counts of one span. */
export const count: FieldRule = {
  test: (v) => Number.isInteger(v) && (v as number) >= spanTokens.min && (v as number) <= spanTokens.max,
  message: `must be an integer from ${spanTokens.min} to ${spanTokens.max}`,
};

/** The cost of one span. */
export const amount: FieldRule = {
  test: (v) => typeof v === 'number' && v >= spanCost.min && v <= spanCost.max,
  message: `must be a number from ${spanCost.min} to ${spanCost.max}`,
};

export const jsonObject: FieldRule = { test: isJsonObject, message: 'must be an object' };

export const anyJson: FieldRule = {};

export const nested = <T extends object>(cls: DtoClass<T>): FieldRule => ({
  test: (v) => v instanceof cls,
  message: 'must be an object',
  read: (v) => (isJsonObject(v) ? toDto(cls, v) : v),
  nested: cls,
});
