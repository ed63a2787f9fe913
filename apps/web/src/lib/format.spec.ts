import { formatCost, formatMs, preview } from './format';

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
});
