import { UrlShares } from './url-shares';

describe(UrlShares.name, () => {
  it('gives each URL its shares and no more, independently of the other URLs', () => {
    const shares = new UrlShares(2);
    expect([shares.take('a'), shares.take('a'), shares.take('a')]).toEqual([true, true, false]);
    expect(shares.take('b')).toBe(true);
    shares.release('a');
    expect([shares.take('a'), shares.take('a')]).toEqual([true, false]);
  });
});
