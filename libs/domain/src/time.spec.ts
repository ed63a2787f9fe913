import { parseTimestamp } from './time';

describe(parseTimestamp.name, () => {
  it.each([
    ['2024-01-01T00:00:00Z', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00+00:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01T02:00:00+02:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00.123456Z', Date.UTC(2024, 0, 1, 0, 0, 0, 123)],
    ['2024-01-01T00:00:00', Date.UTC(2024, 0, 1)],
  ])('reads %s as UTC', (input, ms) => expect(parseTimestamp(input)).toBe(ms));

  it.each(['yesterday', '2024-13-01T00:00:00Z', '', 1704067200000, null, '20240101'])('refuses %p', (input) => {
    expect(parseTimestamp(input)).toBeNull();
  });
});
