import fc from 'fast-check';
import { DomainError } from '../errors';
import { NULLABLE_TIME_ID_CURSOR, TIME_ID_CURSOR, decodeCursor, encodeCursor, isBigintId, isPositiveInt, keysetPage } from './cursor';

type Cursor = [string, string];
type RowCursor = [string | null, string];
const decodeListCursor = (raw: string) => decodeCursor<Cursor>(raw, TIME_ID_CURSOR);
const decodeRowCursor = (raw: string, field: string) => decodeCursor<RowCursor>(raw, NULLABLE_TIME_ID_CURSOR, field);

const ID = '0b6f2f5e-4c1d-4a8e-9f00-2d9b5a7c1e33';
const tampered = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const two = (n: number) => String(n).padStart(2, '0');

/** How Postgres writes a timestamptz as text: microseconds with trailing zeros cut, the session zone's displacement. */
const pgText = (ms: number, micros: number, [sign, hours, minutes]: [string, number, number]): string => {
  const iso = new Date(ms).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}${sign}${two(hours)}${minutes ? `:${two(minutes)}` : ''}`;
};
const displacement = fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 59 }));

describe('a (time, id) cursor', () => {
  it('reads back every cursor it wrote, whatever instant Postgres wrote', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }),
        fc.integer({ min: 0, max: 999 }),
        displacement,
        fc.uuid(),
        (ms, micros, zone, id) => {
          const cursor: Cursor = [pgText(ms, micros, zone), id];
          expect(decodeListCursor(encodeCursor(cursor))).toEqual(cursor);
        },
      ),
    );
  });

  it.each([
    ['a month that does not exist', '2026-13-01 00:00:00+00'],
    ['a day the month lacks', '2026-02-30 00:00:00+00'],
    ['day zero', '2026-01-00 00:00:00+00'],
    ['year zero', '0000-01-01 00:00:00+00'],
    ['hour 24', '2026-01-01 24:00:00+00'],
    ['minute 60', '2026-01-01 00:60:00+00'],
    ['second 60', '2026-01-01 00:00:60+00'],
    ['a displacement Postgres refuses', '2026-01-01 00:00:00+16'],
    ['displacement minutes past 59', '2026-01-01 00:00:00+01:60'],
  ])('refuses a cursor with %s as a 400, before Postgres sees it', (_, text) => {
    expect(() => decodeListCursor(tampered([text, ID]))).toThrow(
      new DomainError('VALIDATION_ERROR', 'cursor: not a cursor returned by this endpoint'),
    );
  });
});

describe('a (time or null, id) cursor', () => {
  it('reads back every position it wrote, a time sorted last (null) included', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 0, max: Date.parse('2099-12-31T23:59:59.999Z') }), { nil: null }),
        fc.integer({ min: 0, max: 999 }),
        displacement,
        fc.uuid(),
        (ms, micros, zone, id) => {
          const cursor: RowCursor = [ms === null ? null : pgText(ms, micros, zone), id];
          expect(decodeRowCursor(encodeCursor(cursor), 'spansCursor')).toEqual(cursor);
        },
      ),
    );
  });

  it.each([
    ['not base64url JSON', '%%%'],
    ['a list cursor with a bad id', tampered(['2026-01-01 00:00:00+00', 'x'])],
    ['three parts', tampered([null, ID, 1])],
    ['a number for the time', tampered([0, ID])],
    ['a time Postgres never wrote', tampered(['2026-02-30 00:00:00+00', ID])],
  ])('refuses %s as a 400 naming the parameter', (_, raw) => {
    expect(() => decodeRowCursor(raw, 'spansCursor')).toThrow(
      new DomainError('VALIDATION_ERROR', 'spansCursor: not a cursor returned by this endpoint'),
    );
  });

  it('is not a trace list cursor: the list refuses a null time', () => {
    expect(() => decodeListCursor(tampered([null, ID]))).toThrow(
      new DomainError('VALIDATION_ERROR', 'cursor: not a cursor returned by this endpoint'),
    );
  });
});

describe('a single-number cursor', () => {
  it('reads back every bigint id and int it wrote', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 18n - 1n }), (id) =>
        expect(decodeCursor<[string]>(encodeCursor([String(id)]), [isBigintId])).toEqual([String(id)]),
      ),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (n) =>
        expect(decodeCursor<[number]>(encodeCursor([n]), [isPositiveInt])).toEqual([n]),
      ),
    );
  });

  it.each([
    ['the bare number an older version wrote', '12'],
    ['zero', tampered(['0'])],
    ['a number past bigint', tampered(['1'.repeat(19)])],
    ['a number for the id', tampered([12])],
  ])('refuses %s as a 400 naming the parameter', (_, raw) => {
    expect(() => decodeCursor<[string]>(raw, [isBigintId])).toThrow(
      new DomainError('VALIDATION_ERROR', 'cursor: not a cursor returned by this endpoint'),
    );
  });

  it('refuses a version past a Postgres int', () => {
    expect(() => decodeCursor<[number]>(tampered([2 ** 31]), [isPositiveInt])).toThrow('cursor: not a cursor returned by this endpoint');
  });
});

describe(keysetPage.name, () => {
  it('shows at most limit rows, and a cursor to the last one shown only when more were fetched', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 10 }), (fetched, limit) => {
        const rows = Array.from({ length: Math.min(fetched, limit + 1) }, (_, i) => ({ n: i + 1 }));
        const { data, nextCursor } = keysetPage(rows, limit, (row) => [row.n]);
        expect(data).toEqual(rows.slice(0, limit));
        expect(nextCursor).toBe(rows.length > limit ? encodeCursor([limit]) : null);
      }),
    );
  });
});
