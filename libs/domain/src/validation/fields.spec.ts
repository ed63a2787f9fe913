import fc from 'fast-check';
import type { JsonObject } from '../json/types';
import {
  GenerationCreateBody,
  GenerationUpdateBody,
  NATIVE_EVENT_BODIES,
  NATIVE_EVENT_TYPES,
  ScoreBody,
  TraceCreateBody,
} from '../native/native-events.dto';
import { ClosedDto, type DtoClass, type FieldRule, Optional, Required, UpdateOf, refusalsOf, schemaOf, toDto, validateDto } from './fields';
import { decimalInteger, nested, oneOf, requiredText, text, timestamp, uuid } from './rules';

const AT = '2025-01-15T10:00:00.000Z';

describe(toDto.name, () => {
  it('copies declared own fields by reference, drops nulls and reads timestamps as UTC', () => {
    const input = { big: ['x'] };
    const dto = toDto(TraceCreateBody, { id: 't', name: 'n', input, userId: null, timestamp: '2025-01-15T11:00:00+01:00', extra: 1 });
    expect(dto).toBeInstanceOf(TraceCreateBody);
    expect(dto.input).toBe(input);
    expect({ ...dto }).toEqual({ id: 't', name: 'n', input, timestamp: AT });
  });

  it('reads own fields only, so that no prototype lends one', () => {
    const plain = Object.assign(Object.create({ name: 'inherited' }) as JsonObject, { id: 't' });
    expect({ ...toDto(TraceCreateBody, plain) }).toEqual({ id: 't' });
  });

  it('builds nested DTOs', () => {
    const dto = toDto(GenerationCreateBody, { usage: { input: 1, surprise: 2 } });
    expect(dto.usage).toEqual({ input: 1 });
    expect(dto.usage?.constructor.name).toBe('UsageBody');
  });

  it('survives the values that make class-transformer throw or drop keys', () => {
    const hostile = JSON.parse(
      '{"id":{"constructor":1},"name":[{"constructor":"x"}],"metadata":{"toString":1,"valueOf":2},"usage":{"input":{"constructor":1}}}',
    );
    expect(() => toDto(GenerationCreateBody, hostile)).not.toThrow();
    expect(toDto(GenerationCreateBody, hostile).metadata).toBe(hostile.metadata);
  });
});

class Limits {
  @Required(text(1, 10)) label: string;
  @Optional(decimalInteger({ min: 1, max: 5 })) limit?: number;
}
class Probe extends Limits {
  @Required(uuid) projectId: string;
  @Optional(nested(Limits)) inner?: Limits;
  @Required({}) anything?: unknown;
}

describe(validateDto.name, () => {
  it('answers with the DTO, or the first field at fault in declaration order', () => {
    expect(validateDto(ScoreBody, { traceId: 't', name: 'q', value: 1 }, 'score')).toEqual({ ok: true, value: expect.any(ScoreBody) });
    expect(validateDto(ScoreBody, { value: {} }, 'score')).toEqual({
      ok: false,
      message: 'score.traceId: must be a string of 1 to 256 characters',
    });
  });

  it('words a refusal inside a nested DTO by its path', () => {
    expect(validateDto(GenerationCreateBody, { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: { input: 1 } }, 'body').ok).toBe(
      true,
    );
    expect(validateDto(GenerationCreateBody, { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: { input: -1 } }, 'body')).toEqual({
      ok: false,
      message: 'body.usage.input: must be an integer from 0 to 1000000000',
    });
    expect(validateDto(GenerationCreateBody, { id: 'g', traceId: 't', name: 'n', startTime: 'soon' }, 'batch[3].body')).toEqual({
      ok: false,
      message: 'batch[3].body.startTime: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    });
  });

  it('checks inherited fields first, names top-level fields bare under an empty path, and takes anything for a rule without a test', () => {
    expect(validateDto(Probe, { projectId: 'p', label: '' }, '')).toEqual({
      ok: false,
      message: 'label: must be a string of 1 to 10 characters',
    });
    expect(validateDto(Probe, { projectId: 'p', label: 'l' }, '')).toEqual({ ok: false, message: 'projectId: must be a UUID' });
    expect(
      validateDto(
        Probe,
        { projectId: '6f1c2a4e-8d3b-4b7a-9c1e-2f3a4b5c6d7e', label: 'l', limit: '5', inner: { label: 'i', limit: '0' } },
        '',
      ),
    ).toEqual({
      ok: false,
      message: 'inner.limit: must be a decimal integer from 1 to 5',
    });
    expect(validateDto(Probe, { projectId: '6f1c2a4e-8d3b-4b7a-9c1e-2f3a4b5c6d7e', label: 'l', limit: '5' }, '')).toEqual({
      ok: true,
      value: expect.objectContaining({ limit: 5 }),
    });
  });
  it("appends the part of a value a rule names to the field's path", () => {
    const pairs: FieldRule = {
      test: (v) => Array.isArray(v) && v.every((x) => typeof x === 'number'),
      message: (v) =>
        Array.isArray(v) ? { path: `[${v.findIndex((x) => typeof x !== 'number')}]`, message: 'must be a number' } : 'must be an array',
    };
    class Series {
      @Required(pairs) points: number[];
    }
    expect(validateDto(Series, { points: [1, 'x'] }, 'body')).toEqual({ ok: false, message: 'body.points[1]: must be a number' });
    expect(validateDto(Series, { points: 1 }, 'body')).toEqual({ ok: false, message: 'body.points: must be an array' });
  });
});

describe(ClosedDto.name, () => {
  @ClosedDto()
  class Window {
    @Optional(decimalInteger({ min: 1, max: 5 })) size?: number;
    @Optional(nested(Limits)) limits?: Limits;
  }
  class Parent {
    @Optional(nested(Window)) window?: Window;
  }

  it('refuses undeclared fields by name before any declared one, at whatever depth the closed DTO sits', () => {
    expect(validateDto(Window, { size: 9, sise: 3, extra: 1 }, '')).toEqual({
      ok: false,
      message: 'unknown fields "sise", "extra"; the fields are size, limits',
    });
    expect(validateDto(Window, { size: 9 }, 'body')).toEqual({ ok: false, message: 'body.size: must be a decimal integer from 1 to 5' });
    expect(validateDto(Parent, { window: { size: 1, sise: 3 } }, 'input')).toEqual({
      ok: false,
      message: 'input.window: unknown field "sise"; the fields are size, limits',
    });
  });

  it('states that no other field is taken', () => {
    expect(schemaOf(Window)).toMatchObject({ type: 'object', additionalProperties: false });
    expect(schemaOf(Limits)).not.toHaveProperty('additionalProperties');
  });
});

describe(UpdateOf.name, () => {
  it("keeps the base's fields as they are and the create body's own ones, optional, in their order", () => {
    expect(schemaOf(GenerationUpdateBody)).toEqual({ ...schemaOf(GenerationCreateBody), required: ['id', 'traceId'] });
    expect(validateDto(GenerationUpdateBody, { id: 'g', traceId: 't' }, '')).toEqual({ ok: true, value: { id: 'g', traceId: 't' } });
    expect(validateDto(GenerationUpdateBody, { traceId: 't', name: '' }, '')).toEqual({
      ok: false,
      message: expect.stringMatching(/^id: /),
    });
    expect(validateDto(GenerationUpdateBody, { id: 'g', traceId: 't', name: '', cost: -1 }, '')).toEqual({
      ok: false,
      message: expect.stringMatching(/^name: /),
    });
  });
});

describe(refusalsOf.name, () => {
  class Login {
    @Required(requiredText(5)) email: string;
    @Required(requiredText(5)) password: string;
  }
  it('lists the first fault of every field, worded for the value refused', () => {
    expect(refusalsOf(Login, toDto(Login, {}))).toEqual([
      { path: 'email', message: 'is required' },
      { path: 'password', message: 'is required' },
    ]);
    expect(refusalsOf(Login, toDto(Login, { email: 5, password: 'toolong' }))).toEqual([
      { path: 'email', message: 'must be a string' },
      { path: 'password', message: 'must be at most 5 characters' },
    ]);
  });
});

describe(schemaOf.name, () => {
  it('states each field by its rule, nested DTOs included, required fields listed', () => {
    expect(schemaOf(Probe)).toEqual({
      type: 'object',
      properties: {
        label: { type: 'string', minLength: 1, maxLength: 10 },
        limit: { type: 'integer', minimum: 1, maximum: 5 },
        projectId: { type: 'string', format: 'uuid' },
        inner: {
          type: 'object',
          properties: { label: { type: 'string', minLength: 1, maxLength: 10 }, limit: { type: 'integer', minimum: 1, maximum: 5 } },
          required: ['label'],
        },
        anything: {},
      },
      required: ['label', 'projectId'],
    });
  });

  it('takes the schema a hand-written rule states', () => {
    const even: FieldRule = {
      test: (v) => Number.isInteger(v) && (v as number) % 2 === 0,
      message: 'must be an even integer',
      schema: { type: 'integer', description: 'even' },
    };
    class Pair {
      @Optional(even) size?: number;
      @Required(oneOf(['a', 'b'])) side: string;
      @Optional(timestamp) at?: string;
    }
    expect(schemaOf(Pair)).toEqual({
      type: 'object',
      properties: {
        size: { type: 'integer', description: 'even' },
        side: { type: 'string', enum: ['a', 'b'] },
        at: {
          type: 'string',
          format: 'date-time',
          description: 'an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
        },
      },
      required: ['side'],
    });
  });

  it('describes the native event bodies', () => {
    const usage = schemaOf(GenerationCreateBody).properties?.usage;
    expect(usage).toMatchObject({ type: 'object', properties: { input: { type: 'integer', minimum: 0, maximum: 1_000_000_000 } } });
    expect(schemaOf(TraceCreateBody).required).toEqual(['id', 'name']);
  });
});

describe('validateDto on arbitrary JSON', () => {
  const FIELD_NAMES = [
    'id',
    'traceId',
    'parentObservationId',
    'name',
    'type',
    'timestamp',
    'startTime',
    'endTime',
    'userId',
    'sessionId',
    'metadata',
    'tags',
    'input',
    'output',
    'level',
    'statusMessage',
    'model',
    'modelParameters',
    'usage',
    'cost',
    'spanId',
    'value',
    'dataType',
    'source',
    'log',
    'label',
    'limit',
    'projectId',
    'inner',
  ];
  const fieldValue = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      AT,
      '2025-01-15T10:00:00+02:00',
      '2025-02-30',
      'soon',
      '',
      'LLM',
      'tool',
      'ERROR',
      'NUMERIC',
      'BOOLEAN',
      'API',
      '3',
      '007',
      -1,
      0,
      1.5,
      2 ** 53,
      true,
    ),
    fc.record(
      { input: fc.jsonValue({ maxDepth: 1 }), output: fc.nat(), total: fc.integer(), label: fc.string(), limit: fc.nat() },
      { requiredKeys: [] },
    ),
  );
  /** Valid for every type, so that changing a few fields gives both verdicts. */
  const VALID_FOR_ALL = {
    id: 'x',
    traceId: 't',
    name: 'n',
    startTime: AT,
    value: 1,
    label: 'l',
    projectId: '6f1c2a4e-8d3b-4b7a-9c1e-2f3a4b5c6d7e',
  };
  const body = fc.oneof(
    fc.dictionary(fc.constantFrom(...FIELD_NAMES), fieldValue, { maxKeys: 3 }).map((changes) => ({ ...VALID_FOR_ALL, ...changes })),
    fc.dictionary(fc.string(), fc.jsonValue()),
  );
  const classes: DtoClass[] = [...NATIVE_EVENT_TYPES.map((type) => NATIVE_EVENT_BODIES[type]), Probe, Limits];

  it('never throws, and a refusal names a declared field under the path', () => {
    fc.assert(
      fc.property(fc.constantFrom(...classes), body, (cls, plain) => {
        const check = validateDto(cls, plain as JsonObject, 'body');
        if (check.ok) return;
        const declared = Object.keys(schemaOf(cls).properties ?? {});
        const [field, nestedField] = /^body\.([^:.]+)(?:\.([^:.]+))?: /.exec(check.message)?.slice(1) ?? [];
        expect(declared).toContain(field);
        if (nestedField !== undefined) expect(Object.keys(schemaOf(cls).properties?.[field].properties ?? {})).toContain(nestedField);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the fast path exactly when no field is at fault', () => {
    fc.assert(
      fc.property(fc.constantFrom(...classes), body, (cls, plain) => {
        expect(validateDto(cls, plain as JsonObject, '').ok).toBe(refusalsOf(cls, toDto(cls, plain as JsonObject)).length === 0);
      }),
      { numRuns: 2000 },
    );
  });
});
