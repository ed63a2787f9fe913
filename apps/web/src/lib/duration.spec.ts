import { formatDuration } from './duration';

describe(formatDuration.name, () => {
  it.each([
    [null, '–'],
    [850, '850 ms'],
    [42_000, '42.0 s'],
    [122_000, '2 min 2 s'],
    [3_600_000 + 5 * 60_000 + 59_000, '1 h 5 min'],
    [3 * 86_400_000 + 2 * 3_600_000, '3 d 2 h'],
  ])('%s ms reads %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
