import fc from 'fast-check';
import { type JsonObject, type JsonValue, SPAN_TYPE_PATTERN, isJsonObject, sanitizeText } from '@app/domain';
import { type Convention, MAPPED_SPAN_FIELDS, MAPPED_TRACE_FIELDS } from './convention';
import { GEN_AI_EVENTS, GEN_AI_KEYS } from './gen-ai';
import { LANGFUSE_KEYS } from './langfuse';
import { CONVENTIONS, mapSpan } from './map-span';
import { OPENINFERENCE_KEYS } from './openinference';
import { OPENLLMETRY_KEYS } from './openllmetry';
import { MAX_LABEL_LENGTH, type Rule, type SpanView } from './readers';
import { SPEC_KEYS } from './spec';
import { VERCEL_AI_KEYS } from './vercel-ai';

/** Any text `decodeAttributes` yields: any UTF-16 made safe for Postgres. */
const text = fc.string({ unit: 'binary', maxLength: 16 }).map(sanitizeText);
/** JSON text a convention might send, well-formed or not, deep or not, with poisoned keys or not. */
const jsonText = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '{"__proto__":{"x":1},"a":[1]}',
    '[{"role":"user","content":"\\u0000\\ud800"}]',
    `${'['.repeat(100)}${']'.repeat(100)}`,
    '{"input":5,"output":"7"}',
    '{',
    '["a", 3, null]',
  ),
);
/** Values as `decodeAttributes` yields them: text, numbers (int64 beyond 2^53 as text), booleans, null, lists, objects. */
const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    text,
    jsonText,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom('NaN', 'Infinity', '9223372036854775807', '-1', '23'),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text, tie('value'), { maxKeys: 3 }),
  ),
}));

/** Every key a table names, flattened keys with indices, and arbitrary keys. */
const NAMED_KEYS = [SPEC_KEYS, GEN_AI_KEYS, OPENINFERENCE_KEYS, OPENLLMETRY_KEYS, VERCEL_AI_KEYS, LANGFUSE_KEYS].flatMap(
  (keys) => Object.values(keys) as string[],
);
const flattened = fc
  .tuple(
    fc.constantFrom('llm.input_messages', 'llm.output_messages', 'gen_ai.prompt', 'gen_ai.completion'),
    fc.oneof(fc.nat(3).map(String), text),
    fc.constantFrom(
      'message.role',
      'message.content',
      'role',
      'content',
      'message.tool_calls.0.tool_call.id',
      '__proto__',
      'a.b.c.d.e.f.g.h.i.j',
    ),
  )
  .map(([prefix, index, rest]) => `${prefix}.${index}.${rest}`);
const key = fc.oneof(
  fc.constantFrom(
    ...NAMED_KEYS,
    'langfuse.trace.metadata.__proto__',
    'ai.telemetry.metadata.userId',
    'platform.span.type',
    'tool.name',
    'db.system',
  ),
  flattened,
  text,
);
const attributes: fc.Arbitrary<JsonObject> = fc.dictionary(key, value, { maxKeys: 12 });
const eventName = fc.oneof(
  fc.constantFrom(...Object.values(GEN_AI_EVENTS), 'gen_ai.user.message', 'gen_ai.system.message', 'gen_ai.tool.message'),
  text,
);
const spanView: fc.Arbitrary<SpanView> = fc.record({
  attributes,
  events: fc.array(
    fc.record({ name: eventName, attributes, body: fc.option(value, { nil: undefined }) }, { requiredKeys: ['name', 'attributes'] }),
    { maxLength: 3 },
  ),
  resource: attributes,
});

/** What each field may hold, whatever the attributes. */
const FIELD_CHECKS: Record<string, (v: JsonValue) => boolean> = {
  operation: (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_LABEL_LENGTH,
  model: (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_LABEL_LENGTH,
  modelParameters: isJsonObject,
  promptTokens: (v) => Number.isSafeInteger(v) && (v as number) >= 0,
  completionTokens: (v) => Number.isSafeInteger(v) && (v as number) >= 0,
  usageDetails: (v) =>
    isJsonObject(v) && Object.keys(v).length > 0 && Object.values(v).every((n) => Number.isSafeInteger(n) && (n as number) >= 0),
  cost: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  input: (v) => v !== null && v !== undefined,
  output: (v) => v !== null && v !== undefined,
  name: (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_LABEL_LENGTH,
  userId: (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_LABEL_LENGTH,
  sessionId: (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_LABEL_LENGTH,
  environment: (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_LABEL_LENGTH,
  tags: (v) => Array.isArray(v) && v.length > 0 && v.every((t) => typeof t === 'string' && t.length <= MAX_LABEL_LENGTH),
  metadata: (v) => isJsonObject(v) && Object.keys(v).length > 0,
};

/** Strings Postgres refuses: NUL and unpaired surrogates. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const safeForPostgres = (v: JsonValue): boolean => !UNSAFE.test(JSON.stringify(v));

/** A `from` names a span attribute, a resource attribute or an event. */
const namesAnOrigin = (from: string, span: SpanView): boolean =>
  Object.hasOwn(span.attributes, from) ||
  (from.startsWith('resource ') && Object.hasOwn(span.resource, from.slice('resource '.length))) ||
  (from.startsWith('event ') && span.events.some((e) => from.startsWith(`event ${e.name}`)));

describe.each(CONVENTIONS.map((c) => [c.name, c] as [string, Convention]))('%s table', (_, convention) => {
  it('never throws and finds only values its field can hold, read from the span it was given', () => {
    fc.assert(
      fc.property(spanView, (span) => {
        const rules = [
          ...MAPPED_SPAN_FIELDS.map((f) => [f, convention.span[f]] as const),
          ...MAPPED_TRACE_FIELDS.map((f) => [f, convention.trace[f]] as const),
        ];
        for (const [field, fieldRules] of rules) {
          for (const rule of (fieldRules ?? []) as readonly ((s: SpanView) => { value: JsonValue; from: string[] } | undefined)[]) {
            const found = rule(span);
            if (found === undefined) continue;
            expect({ field, ok: FIELD_CHECKS[field](found.value) }).toEqual({ field, ok: true });
            expect(found.from.length).toBeGreaterThan(0);
            for (const from of found.from) expect(namesAnOrigin(from, span)).toBe(true);
          }
        }
        const kind = convention.kind?.(span);
        if (kind) expect(kind.value).toMatch(SPAN_TYPE_PATTERN);
      }),
      { numRuns: 300 },
    );
  });

  it('has rules stating their keys find nothing without them, and read only them (mapSpan skips them on such spans)', () => {
    const keyedRules = [...Object.values(convention.span), ...Object.values(convention.trace)]
      .flatMap((fieldRules) => (fieldRules ?? []) as readonly Rule[])
      .filter((rule) => rule.keys !== undefined);
    expect(keyedRules.length).toBeGreaterThan(0);
    fc.assert(
      fc.property(spanView, (span) => {
        for (const rule of keyedRules) {
          const keys = rule.keys as readonly string[];
          const found = rule(span);
          if (found) for (const from of found.from) expect(keys).toContain(from);
          const without = { ...span, attributes: Object.fromEntries(Object.entries(span.attributes).filter(([k]) => !keys.includes(k))) };
          expect(rule(without)).toBeUndefined();
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe(mapSpan.name, () => {
  it('is total: a span type of the native form, values safe for Postgres, and every attribute either used or listed unused', () => {
    fc.assert(
      fc.property(spanView, (span) => {
        const mapping = mapSpan(span);
        expect(mapping.type.value).toMatch(SPAN_TYPE_PATTERN);
        const values = [...Object.values(mapping.span), ...Object.values(mapping.trace)].map((m) => m.value);
        for (const v of values) expect(safeForPostgres(v)).toBe(true);
        const used = new Set([mapping.type, ...Object.values(mapping.span), ...Object.values(mapping.trace)].flatMap((m) => m.from));
        for (const key of Object.keys(span.attributes)) expect(used.has(key) !== mapping.unused.includes(key)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe(`${mapSpan.name} for the conversion`, () => {
  it("finds the same values as explain's full mapping, without the overridden and unused lists", () => {
    fc.assert(
      fc.property(spanView, (span) => {
        const full = mapSpan(span, 'explain');
        expect(mapSpan(span, 'winners')).toEqual({ ...full, overridden: [], unused: [] });
      }),
      { numRuns: 500 },
    );
  });
});
