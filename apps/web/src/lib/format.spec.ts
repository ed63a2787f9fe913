import { formatCompactCount, formatCost, formatModelCost, formatMs, preview } from './format';

describe('format', () => {
  it('writes durations in ms below a second and seconds above', () => {
    expect([formatMs(12.4), formatMs(1234), formatMs(42_000), formatMs(null)]).toEqual(['12 ms', '1.23 s', '42.0 s', '–']);
  });
  it('writes small costs with two significant digits', () => {
    expect([formatCost(0), formatCost(0.000123), formatCost(1.5)]).toEqual(['$0', '$0.00012', '$1.5000']);
  });
  it('previews JSON on one line, cut with an ellipsis', () => {
    expect(preview({ a: 'x\ny' })).toBe('{"a":"x\\ny"}');
    expect(preview('a\n  b')).toBe('a b');
    expect(preview('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('writes counts for a tree row in at most four characters', () => {
    expect([0, 950, 999, 1000, 1234, 9_960, 34_499, 999_499, 999_500, 1_500_000, 25_000_000, null].map(formatCompactCount)).toEqual([
      '0',
      '950',
      '999',
      '1k',
      '1.2k',
      '10k',
      '34k',
      '999k',
      '1M',
      '1.5M',
      '25M',
      '–',
    ]);
  });
});

describe(formatModelCost.name, () => {
  it('says "no price" for a model none of whose usage was priced, and marks a partly priced cost as a lower bound', () => {
    expect(formatModelCost({ costUsd: 0.5, calls: 3, unpricedCalls: 0 })).toBe('$0.5000');
    expect(formatModelCost({ costUsd: 0, calls: 3, unpricedCalls: 0 })).toBe('$0');
    expect(formatModelCost({ costUsd: 0, calls: 3, unpricedCalls: 3 })).toBe('no price');
    expect(formatModelCost({ costUsd: 0.5, calls: 3, unpricedCalls: 1 })).toBe('≥ $0.5000');
  });
});
