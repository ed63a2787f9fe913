import type { JsonObject } from '../json/types';
import type { JsonSchema } from './json-schema';

/** A DTO class, abstract or not: the decorators below key on its constructor. */
export type DtoClass<T extends object = object> = Function & { prototype: T };

/**
 * How one DTO field is read from the client's JSON and checked: one test and one message per
 * field, so that an error reads `batch[3].body.startTime: must be an ISO 8601 timestamp`.
 */
export interface FieldRule {
  /** Given the DTO too, for rules across fields. Absent: any JSON value (input, output, log). */
  readonly test?: (value: unknown, dto: object) => boolean;
  /**
   * What the field must be; a function of the refused value when the words depend on it, or
   * when one part of the value is at fault: a refusal whose `path` (`[2].role`, `.Authorization`)
   * is appended to the field's.
   */
  readonly message?: string | ((value: unknown) => string | FieldRefusal);
  /** The client's value as the DTO holds it; what it cannot read becomes a value `test` refuses. */
  readonly read?: (value: unknown) => unknown;
  /** The value is a DTO of this class, checked field by field. */
  readonly nested?: DtoClass;
  /** What the rule accepts, as JSON Schema, for the API's description (`schemaOf`). */
  readonly schema?: JsonSchema;
}

interface FieldSpec {
  readonly key: string;
  readonly rule: FieldRule;
  readonly optional: boolean;
}

const declaredFields = new Map<DtoClass, FieldSpec[]>();

function field(rule: FieldRule, optional: boolean): PropertyDecorator {
  return (target, property) => {
    const cls = target.constructor;
    declaredFields.set(cls, [...(declaredFields.get(cls) ?? []), { key: String(property), rule, optional }]);
  };
}

const closedClasses = new Set<DtoClass>();

/** A DTO whose client may send declared fields only: a typo (`timeout`) is refused by name rather than ignored. */
export const ClosedDto = (): ClassDecorator => (cls) => {
  closedClasses.add(cls);
};

/** A DTO's undeclared fields, kept by `toDto` for a closed class until `refusalsOf` words them. */
const undeclaredFields = new WeakMap<object, string[]>();

/** A client's key or name in a message, cut short so that a huge one cannot flood it. */
const shown = (text: string) => JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);

/** A field the body must carry (`null` counts as missing). */
export const Required = (rule: FieldRule): PropertyDecorator => field(rule, false);
/** A field the body may carry; `null` is absent (CONTRACT "General"). */
export const Optional = (rule: FieldRule): PropertyDecorator => field(rule, true);

/**
 * The update of a create body (CONTRACT "Native batch events": an update carries the base's
 * fields and any create field to change): a class over `base` declaring `create`'s own fields
 * again, each optional, in their order.
 */
export function UpdateOf<B extends object, C extends B>(
  base: abstract new () => B,
  create: DtoClass<C>,
): new () => B & Partial<Omit<C, keyof B>> {
  const update = class extends (base as abstract new () => object) {};
  declaredFields.set(
    update,
    (declaredFields.get(create) ?? []).map((spec) => ({ ...spec, optional: true })),
  );
  return update as new () => B & Partial<Omit<C, keyof B>>;
}

const ancestry = (cls: DtoClass): DtoClass[] => {
  const chain: DtoClass[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c))
    chain.unshift(c as DtoClass);
  return chain;
};

const fieldsByClass = new Map<DtoClass, readonly FieldSpec[]>();

/** A class's fields, inherited ones first, each in declaration order. */
function fieldsOf(cls: DtoClass): readonly FieldSpec[] {
  let fields = fieldsByClass.get(cls);
  if (fields === undefined) {
    fields = ancestry(cls).flatMap((c) => declaredFields.get(c) ?? []);
    fieldsByClass.set(cls, fields);
  }
  return fields;
}

/** The names of the fields `cls` declares (inherited ones first). */
export const fieldNamesOf = (cls: DtoClass): string[] => fieldsOf(cls).map((f) => f.key);

/** Whether `cls` declares its fields with `Required`/`Optional`: a DTO `validateDto` can read. */
export const isFieldDto = (cls: unknown): cls is DtoClass => typeof cls === 'function' && fieldsOf(cls as DtoClass).length > 0;

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
  if (closedClasses.has(cls)) {
    const undeclared = Object.keys(plain).filter((key) => !fieldsOf(cls).some((f) => f.key === key));
    if (undeclared.length > 0) undeclaredFields.set(dto, undeclared);
  }
  return dto as T;
}

/** One field at fault: its path from the DTO (`usage.input`) and what it must be (`must be …`). */
export interface FieldRefusal {
  readonly path: string;
  readonly message: string;
}

function refusalOf(rule: FieldRule, value: unknown, path: string): FieldRefusal {
  const words = typeof rule.message === 'function' ? rule.message(value) : (rule.message ?? 'is invalid');
  return typeof words === 'string' ? { path, message: words } : { path: path + words.path, message: words.message };
}

/**
 * The first fault of each field, in declaration order, stopping after `limit`. A missing field
 * is tested as `undefined` unless optional, so a rule without a test takes anything.
 */
function collectRefusals(cls: DtoClass, dto: object, prefix: string, limit: number, out: FieldRefusal[]): void {
  const undeclared = undeclaredFields.get(dto);
  if (undeclared) {
    const fields = fieldsOf(cls).map((f) => f.key);
    out.push({
      path: prefix.slice(0, -1),
      message: `unknown field${undeclared.length > 1 ? 's' : ''} ${undeclared.map(shown).join(', ')}; the fields are ${fields.join(', ')}`,
    });
    return;
  }
  for (const { key, rule, optional } of fieldsOf(cls)) {
    const value = (dto as Record<string, unknown>)[key];
    if (value === undefined && optional) continue;
    if (rule.test && !rule.test(value, dto)) out.push(refusalOf(rule, value, prefix + key));
    else if (rule.nested && typeof value === 'object' && value !== null)
      collectRefusals(rule.nested, value, `${prefix}${key}.`, limit, out);
    if (out.length >= limit) return;
  }
}

/** Whether `refusalsOf` finds nothing, without building a refusal: the common case, on the ingest hot path. */
function passes(cls: DtoClass, dto: object): boolean {
  if (undeclaredFields.has(dto)) return false;
  for (const { key, rule, optional } of fieldsOf(cls)) {
    const value = (dto as Record<string, unknown>)[key];
    if (value === undefined && optional) continue;
    if (rule.test && !rule.test(value, dto)) return false;
    if (rule.nested && typeof value === 'object' && value !== null && !passes(rule.nested, value)) return false;
  }
  return true;
}

/** Every field at fault in a DTO built by `toDto`, each with its first fault, in declaration order. */
export function refusalsOf(cls: DtoClass, dto: object, limit = Infinity): FieldRefusal[] {
  const refusals: FieldRefusal[] = [];
  collectRefusals(cls, dto, '', limit, refusals);
  return refusals;
}

export type DtoCheck<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Builds and checks a DTO; a failure names the first field at fault under `path` (an empty
 * path names top-level fields bare, `limit: …`, as a REST query's are). A closed DTO's
 * undeclared fields are its first fault.
 */
export function validateDto<T extends object>(cls: DtoClass<T>, plain: JsonObject, path: string): DtoCheck<T> {
  const dto = toDto(cls, plain);
  if (passes(cls, dto)) return { ok: true, value: dto };
  const [first] = refusalsOf(cls, dto, 1);
  const at = path && first.path ? `${path}.${first.path}` : path || first.path;
  return { ok: false, message: at ? `${at}: ${first.message}` : first.message };
}

/**
 * The JSON Schema of the objects `validateDto` accepts for `cls`: unknown fields are allowed,
 * and ignored, unless the DTO is closed. An optional field may also be null, which reads as absent.
 */
export function schemaOf(cls: DtoClass): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const { key, rule, optional } of fieldsOf(cls)) {
    properties[key] = rule.nested ? { ...schemaOf(rule.nested), ...rule.schema } : (rule.schema ?? {});
    if (!optional && rule.test) required.push(key);
  }
  return {
    type: 'object',
    properties,
    ...(required.length && { required }),
    ...(closedClasses.has(cls) && { additionalProperties: false }),
  };
}
