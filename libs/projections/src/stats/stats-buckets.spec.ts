import { splitAtHours } from './stats-buckets';

const at = (iso: string) => new Date(iso);

describe(splitAtHours.name, () => {
  it('reads the whole hours of a range from the roll-ups and its edges from the 5-minute stats', () => {
    expect(splitAtHours(at('2024-03-01T09:35:00Z'), at('2024-03-01T13:25:00Z'), true)).toEqual([
      at('2024-03-01T09:35:00Z'),
      at('2024-03-01T10:00:00Z'),
      at('2024-03-01T13:00:00Z'),
      at('2024-03-01T13:25:00Z'),
    ]);
    expect(splitAtHours(at('2024-03-01T10:00:00Z'), at('2024-03-01T12:00:00Z'), true)).toEqual([
      at('2024-03-01T10:00:00Z'),
      at('2024-03-01T10:00:00Z'),
      at('2024-03-01T12:00:00Z'),
      at('2024-03-01T12:00:00Z'),
    ]);
  });

  it('reads it all from the 5-minute stats without a whole hour, or when told', () => {
    const within = [at('2024-03-01T10:10:00Z'), at('2024-03-01T10:50:00Z')] as const;
    expect(splitAtHours(...within, true)).toEqual([within[0], within[1], within[1], within[1]]);
    const across = [at('2024-03-01T10:10:00Z'), at('2024-03-01T11:50:00Z')] as const;
    expect(splitAtHours(...across, true)).toEqual([across[0], across[1], across[1], across[1]]);
    const wide = [at('2024-03-01T09:00:00Z'), at('2024-03-01T12:00:00Z')] as const;
    expect(splitAtHours(...wide, false)).toEqual([wide[0], wide[1], wide[1], wide[1]]);
  });

  it('reads every hour of an unbounded range from the roll-ups', () => {
    expect(splitAtHours(null, null, true)).toEqual(['-infinity', '-infinity', 'infinity', 'infinity']);
    expect(splitAtHours(null, at('2024-03-01T10:30:00Z'), true)).toEqual([
      '-infinity',
      '-infinity',
      at('2024-03-01T10:00:00Z'),
      at('2024-03-01T10:30:00Z'),
    ]);
  });
});
