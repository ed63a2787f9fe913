import fc from 'fast-check';
import type { JsonObject } from '../json/types';
import { type FieldRule, Optional, Required, refusalsOf, toDto } from './fields';
import { decimalInteger, email, requiredText, storableText, timestampMs } from './rules';

/** The value a one-field DTO holds, or its refusal worded as every reader words it (`limit: must be …`). */
function readField(rule: FieldRule, input: JsonObject, optional = false): unknown {
  class Probe {}
  (optional ? Optional : Required)(rule)(Probe.prototype, 'field');
  const dto = toDto(Probe, input) as { field?: unknown };
  const refusals = refusalsOf(Probe, dto).map(({ path, message }) => `${path}: ${message}`);
  return refusals.length ? refusals : dto.field;
}

describe('decimalInteger', () => {
  const limit = decimalInteger({ min: 1, max: 100 });
  const read = (value: unknown) => readField(limit, { field: value as never });
  const REFUSAL = ['field: must be a decimal integer from 1 to 100'];

  it.each(['1', '16', '100', 16])('takes %p', (value) => {
    expect(read(value)).toBe(Number(value));
  });

  it.each(['0x10', '1e2', '5.0', '+5', ' 5', '5 ', '0b11', '0o7', '010', '', '0', '101', '-1', 'Infinity', 16.5, '16abc', true, null])(
    'refuses %p naming the field and its range',
    (value) => {
      expect(read(value)).toEqual(REFUSAL);
    },
  );

  it('takes exactly the decimal digits of an integer in range, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const inRange = /^[1-9][0-9]*$/.test(text) && Number(text) <= 100;
        expect(read(text)).toEqual(inRange ? Number(text) : REFUSAL);
      }),
    );
  });
});

describe('requiredText', () => {
  it.each([
    [{}, ['field: is required']],
    [{ field: null }, ['field: is required']],
    [{ field: '' }, ['field: is required']],
    [{ field: 5 }, ['field: must be a string']],
    [{ field: 'toolong' }, ['field: must be at most 5 characters']],
    [{ field: 'a\u0000b' }, ['field: must not contain NUL characters or unpaired UTF-16 surrogates']],
    [{ field: 'a\ud800' }, ['field: must not contain NUL characters or unpaired UTF-16 surrogates']],
    [{ field: '\udc00b' }, ['field: must not contain NUL characters or unpaired UTF-16 surrogates']],
    [{ field: 'ok' }, 'ok'],
    [{ field: 'o\u{1f600}' }, 'o\u{1f600}'],
  ])('reads %p as %p: one message per field', (input, expected) => {
    expect(readField(requiredText(5), input)).toEqual(expected);
  });
});

describe('storableText', () => {
  it('refuses what Postgres cannot store, and a repeated query parameter, naming the field', () => {
    expect(readField(storableText, { field: 'a\u0000' }, true)).toEqual([
      'field: must not contain NUL characters or unpaired UTF-16 surrogates',
    ]);
    expect(readField(storableText, { field: ['a', 'b'] }, true)).toEqual(['field: must be a string']);
    expect(readField(storableText, {}, true)).toBeUndefined();
  });
});

describe('email', () => {
  it('refuses an unpaired surrogate as not an address, rather than throwing', () => {
    expect(readField(email, { field: '\ud800@example.com' })).toEqual(['field: must be an e-mail address']);
    expect(readField(email, { field: 'ada@example.com' })).toBe('ada@example.com');
  });
});

describe('timestampMs', () => {
  it('holds a time as the instant it names, and refuses what is not a timestamp string', () => {
    expect(readField(timestampMs, { field: '2024-01-01T05:30:00+05:30' })).toBe(Date.UTC(2024, 0, 1));
    expect(readField(timestampMs, { field: 1704067200000 })).toEqual([expect.stringMatching(/^field: must be an ISO 8601 timestamp/)]);
  });
});
