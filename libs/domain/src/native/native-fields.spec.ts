import * as classValidator from 'class-validator';
import { IsOptional, MaxLength, validateSync } from 'class-validator';
import fc from 'fast-check';
import type { JsonObject } from '../json/types';
import { GenerationCreateBody, NATIVE_EVENT_BODIES, NATIVE_EVENT_TYPES, ScoreBody, TraceCreateBody } from './native-events.dto';
import { Optional, Required, nested, text, toDto, validateDto } from './native-fields';

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
    const hostile = JSON.parse('{"id":{"constructor":1},"name":[{"constructor":"x"}],"metadata":{"toString":1,"valueOf":2},"usage":{"input":{"constructor":1}}}');
    expect(() => toDto(GenerationCreateBody, hostile)).not.toThrow();
    expect(toDto(GenerationCreateBody, hostile).metadata).toBe(hostile.metadata);
  });
});

describe(validateDto.name, () => {
  it('answers with the DTO, or the first field at fault in declaration order', () => {
    expect(validateDto(ScoreBody, { traceId: 't', name: 'q', value: 1 }, 'score')).toEqual({ ok: true, value: expect.any(ScoreBody) });
    expect(validateDto(ScoreBody, { value: {} }, 'score')).toEqual({ ok: false, message: 'score.traceId: must be a string of 1 to 256 characters' });
  });

  it('confirms a valid object without a class-validator run, and words refusals with one', () => {
    const run = jest.spyOn(classValidator, 'validateSync');
    try {
      expect(validateDto(GenerationCreateBody, { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: { input: 1 } }, 'body').ok).toBe(true);
      expect(run).not.toHaveBeenCalled();
      expect(validateDto(GenerationCreateBody, { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: { input: -1 } }, 'body')).toEqual({
        ok: false,
        message: 'body.usage.input: must be an integer from 0 to 1000000000',
      });
      expect(run).toHaveBeenCalledTimes(1);
    } finally {
      run.mockRestore();
    }
  });

  it('leaves a class with rules of its own to class-validator', () => {
    class ShortNamedTrace extends TraceCreateBody {
      @MaxLength(3) declare name: string;
    }
    class Parent {
      @Required(text(1, 10)) label: string;
      @Optional(nested(ShortNamedTrace)) child?: ShortNamedTrace;
    }
    class OptionalName extends TraceCreateBody {
      @IsOptional() declare name: string;
    }
    expect(validateDto(ShortNamedTrace, { id: 't', name: 'long name' }, 'body')).toEqual({ ok: false, message: expect.stringMatching(/^body\.name: /) });
    expect(validateDto(Parent, { label: 'p', child: { id: 't', name: 'long name' } }, 'body')).toEqual({ ok: false, message: expect.stringMatching(/^body\.child\.name: /) });
    expect(validateDto(OptionalName, { id: 't' }, 'body').ok).toBe(true);
  });

  const FIELD_NAMES = ['id', 'traceId', 'parentObservationId', 'name', 'type', 'timestamp', 'startTime', 'endTime', 'userId', 'sessionId', 'metadata', 'tags', 'input', 'output', 'level', 'statusMessage', 'model', 'modelParameters', 'usage', 'cost', 'spanId', 'value', 'dataType', 'source', 'log'];
  const fieldValue = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(AT, '2025-01-15T10:00:00+02:00', '2025-02-30', 'soon', '', 'LLM', 'tool', 'ERROR', 'NUMERIC', 'BOOLEAN', 'API', -1, 0, 1.5, 2 ** 53, true),
    fc.record({ input: fc.jsonValue({ maxDepth: 1 }), output: fc.nat(), total: fc.integer() }, { requiredKeys: [] }),
  );
  /** Valid for every type, so that changing a few fields gives both verdicts. */
  const VALID_FOR_ALL = { id: 'x', traceId: 't', name: 'n', startTime: AT, value: 1 };
  const body = fc.dictionary(fc.constantFrom(...FIELD_NAMES), fieldValue, { maxKeys: 3 }).map((changes) => ({ ...VALID_FOR_ALL, ...changes }));

  it('agrees with class-validator on every body', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NATIVE_EVENT_TYPES), body, (type, plain: JsonObject) => {
        const cls = NATIVE_EVENT_BODIES[type] as typeof TraceCreateBody;
        expect(validateDto(cls, plain, 'body').ok).toBe(validateSync(toDto(cls, plain)).length === 0);
      }),
      { numRuns: 2000 },
    );
  });
});
