import fc from 'fast-check';
import {
  MAX_UNIX_NANO,
  doubleOf,
  int64Of,
  isBase64,
  isoOfUnixNano,
  parentRefOf,
  spanHexOf,
  traceHexOf,
  unixNanoText,
  unixNanoTextOf,
  unixNanoTextToIso,
} from './otlp-wire';

describe('OTLP wire format', () => {
  it.each<[string, unknown, string | null]>([
    ['a decimal string', '1544712660000000001', '1544712660000000001'],
    ['leading zeros', '0001', '1'],
    ['zero', '0', '0'],
    ['zeros', '000', '0'],
    ['a safe JSON number', 1_000_000, '1000000'],
    ['a JSON number above 2^53 (already rounded by JSON.parse)', 1544712660000000000, '1544712660000000000'],
    ['the last nanosecond of 2099', '4102444799999999999', MAX_UNIX_NANO],
    ['the last nanosecond of 2099 with leading zeros', '0004102444799999999999', MAX_UNIX_NANO],
    ['the first nanosecond of 2100', '4102444800000000000', null],
    ['the last nanosecond of year 9999', '253402300799999999999', null],
    ['a JSON number past 2099', 1e21, null],
    ['a huge decimal string', '9'.repeat(10_000), null],
    ['a negative number', -1, null],
    ['a negative string', '-1', null],
    ['a fraction', 1.5, null],
    ['a string with spaces', ' 1', null],
    ['an exponent string', '1e18', null],
    ['an empty string', '', null],
    ['Infinity', Infinity, null],
    ['a boolean', true, null],
  ])('unixNanoTextOf reads %s', (_, value, digits) => expect(unixNanoTextOf(value)).toBe(digits));

  it('treats 0 as "not set"', () => {
    expect(unixNanoText('0')).toBeNull();
    expect(isoOfUnixNano(0)).toBeNull();
  });

  it.each<[string, string]>([
    ['0', '1970-01-01T00:00:00.000000Z'],
    ['999', '1970-01-01T00:00:00.000000Z'],
    ['1000', '1970-01-01T00:00:00.000001Z'],
    ['1999999', '1970-01-01T00:00:00.001999Z'],
    ['1736935200123456789', '2025-01-15T10:00:00.123456Z'],
    [MAX_UNIX_NANO, '2099-12-31T23:59:59.999999Z'],
  ])('unixNanoTextToIso(%p) truncates to microseconds: %s', (digits, iso) => expect(unixNanoTextToIso(digits)).toBe(iso));

  it('agrees with BigInt arithmetic on any time', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: BigInt(MAX_UNIX_NANO) }), (nanos) => {
        const ms = new Date(Number(nanos / 1_000_000n)).toISOString().slice(0, -1);
        expect(unixNanoTextToIso(unixNanoTextOf(nanos.toString()) as string)).toBe(
          `${ms}${((nanos / 1_000n) % 1_000n).toString().padStart(3, '0')}Z`,
        );
      }),
    );
  });

  it('keeps microsecond ISO times in order as text', () => {
    const times = ['1', '999999', '1000000', '1736935200000000000', '1736935200000001000', '1736935200999999000', '1736935201000000000'];
    const isos = times.map((t) => isoOfUnixNano(t));
    expect(isos).not.toContain(null);
    expect([...isos].sort()).toEqual(isos);
  });

  it.each<[unknown, number | string | null]>([
    [42, 42],
    ['42', 42],
    ['-42', -42],
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
    ['9007199254740992', '9007199254740992'],
    ['9223372036854775807', '9223372036854775807'],
    ['00000000000000000042', 42],
    ['9223372036854775808', null],
    ['1.0', null],
    [1.5, null],
    ['', null],
    [null, null],
  ])('int64Of(%p) is %p', (value, decoded) => expect(int64Of(value)).toBe(decoded));

  it.each<[unknown, number | string | null]>([
    [0.5, 0.5],
    ['0.5', 0.5],
    ['-2e3', -2000],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['-Infinity', '-Infinity'],
    ['1e999', 'Infinity'],
    [-0, 0],
    ['-0.0', 0],
    ['0x10', null],
    ['', null],
    [true, null],
  ])('doubleOf(%p) is %p', (value, decoded) => expect(doubleOf(value)).toBe(decoded));

  it.each<[unknown, boolean]>([
    ['AQID', true],
    ['AQ==', true],
    ['-_8', true],
    ['', true],
    ['a b', false],
    [1, false],
  ])('isBase64(%p) is %p', (value, ok) => expect(isBase64(value)).toBe(ok));

  it.each<[unknown, ReturnType<typeof parentRefOf>]>([
    [undefined, { kind: 'root' }],
    [null, { kind: 'root' }],
    ['', { kind: 'root' }],
    ['0000000000000000', { kind: 'root' }],
    ['EEE19B7EC3C1B173', { kind: 'parent', hex: 'eee19b7ec3c1b173' }],
    ['eee19b7ec3c1b17', { kind: 'invalid' }],
    [0, { kind: 'invalid' }],
  ])('parentRefOf(%p)', (value, ref) => expect(parentRefOf(value)).toEqual(ref));

  it.each<[unknown, string | null]>([
    ['5B8EFFF798038103D269B633813FC60C', '5b8efff798038103d269b633813fc60c'],
    ['0'.repeat(32), null],
    ['5b8efff798038103d269b633813fc60', null],
    ['zz12', null],
    [42, null],
  ])('traceHexOf(%p) is %p', (value, hex) => expect(traceHexOf(value)).toBe(hex));

  it.each<[unknown, string | null]>([
    ['EEE19B7EC3C1B174', 'eee19b7ec3c1b174'],
    ['0'.repeat(16), null],
    ['eee19b7ec3c1b17', null],
  ])('spanHexOf(%p) is %p', (value, hex) => expect(spanHexOf(value)).toBe(hex));
});
