import { durationMs, formatCost, formatCount, formatDuration, formatQuota, formatTime } from './format';

describe('format', () => {
  it.each([
    [null, '–'],
    [-1, '–'],
    [0, '0 ms'],
    [999.4, '999 ms'],
    [1234, '1.23 s'],
    [12_345, '12.3 s'],
    [125_000, '2m 05s'],
    [3_720_000, '1h 02m'],
    [3 * 86_400_000 + 3_600_000, '3d 1h'],
  ])('writes the duration %p as %p', (ms, text) => expect(formatDuration(ms)).toBe(text));

  it.each([
    [null, '–'],
    [0, '$0'],
    [0.00001, '<$0.0001'],
    [0.0012345, '$0.0012'],
    [0.0456, '$0.0456'],
    [0.5, '$0.5'],
    [1234.5, '$1,234.50'],
    [-2, '-$2.00'],
  ])('writes the cost %p as %p', (usd, text) => expect(formatCost(usd)).toBe(text));

  it.each([
    [null, '–'],
    [950, '950'],
    [1500, '1.5k'],
    [12_345, '12k'],
    [1_000_000, '1M'],
    [2_500_000_000, '2.5G'],
  ])('writes the count %p as %p', (n, text) => expect(formatCount(n)).toBe(text));

  it('writes a time of today without its date and an older one with it, in UTC', () => {
    const now = new Date('2026-11-24T10:00:00Z');
    expect(formatTime('2026-11-24T09:08:07.123Z', now)).toBe('09:08:07');
    expect(formatTime('2026-11-23T23:59:00+02:00', now)).toBe('11-23 21:59');
    expect(formatTime('not a time', now)).toBe('–');
  });

  it('measures between two timestamps and has none without an end', () => {
    expect(durationMs('2026-01-01T00:00:00Z', '2026-01-01T00:00:01.5Z')).toBe(1500);
    expect(durationMs('2026-01-01T00:00:00Z', null)).toBeNull();
  });

  it('shows a quota with its share and a bar that never overflows', () => {
    expect(formatQuota(2500, 10_000, 10)).toBe('2,500 of 10,000 (25%) [###.......]');
    expect(formatQuota(30_000, 10_000, 10)).toBe('30,000 of 10,000 (300%) [##########]');
    expect(formatQuota(7, null)).toBe('7 (unlimited)');
  });
});
