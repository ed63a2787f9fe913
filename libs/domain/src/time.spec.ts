import fc from 'fast-check';
import { TELEMETRY_RANGES } from './limits';
import { parseTimestamp, toIso } from './time';

const { min, max } = TELEMETRY_RANGES.timestampMs;

describe(parseTimestamp.name, () => {
  it.each([
    ['2024-01-01T00:00:00Z', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00+00:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01T02:00:00+02:00', Date.UTC(2024, 0, 1)],
    ['2023-12-31T21:30:00-0230', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00.123456Z', Date.UTC(2024, 0, 1, 0, 0, 0, 123)],
    ['2024-01-01T00:00:00.5Z', Date.UTC(2024, 0, 1, 0, 0, 0, 500)],
    ['2024-01-01T00:00:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01 10:30', Date.UTC(2024, 0, 1, 10, 30)],
    ['2024-01-01', Date.UTC(2024, 0, 1)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['1970-01-01T00:00:00Z', min],
    ['2099-12-31T23:59:59.999Z', max],
  ])('reads %s as UTC', (input, ms) => expect(parseTimestamp(input)).toBe(ms));

  it.each([
    'yesterday',
    '2024-13-01T00:00:00Z',
    '2024-00-10T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '2023-02-29',
    '2024-01-00',
    '2024-01-01T24:00:00Z',
    '2024-01-01T23:60:00Z',
    '2024-01-01T23:59:60Z',
    '2024-01-01T10:00:00+24:00',
    '2024-W01-1',
    '2024-001',
    '2024-01-01T10Z',
    '2024-01-01T00:00:00,5Z',
    '2024-01-01T00:00:00.Z',
    '2024-01-01Z',
    '0070-01-01T00:00:00Z',
    '1969-12-31T23:59:59.999Z',
    '2100-01-01T00:00:00Z',
    '9999-12-31T00:00:00Z',
    '',
    1704067200000,
    null,
    '20240101',
  ])('refuses %p', (input) => {
    expect(parseTimestamp(input)).toBeNull();
  });

  it('reads back every instant of the range from its ISO form, and nothing outside it', () => {
    fc.assert(
      fc.property(fc.integer({ min: min - 1e12, max: max + 1e12 }), (ms) => {
        expect(parseTimestamp(toIso(ms))).toBe(ms >= min && ms <= max ? ms : null);
      }),
    );
  });

  it('agrees with Date.parse wherever it accepts an offset form', () => {
    const offset = fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 59 }));
    fc.assert(
      fc.property(fc.integer({ min: min + 1e9, max: max - 1e9 }), offset, (ms, [sign, h, m]) => {
        const text = `${toIso(ms).slice(0, -1)}${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
        expect(parseTimestamp(text)).toBe(Date.parse(text));
      }),
    );
  });
});
