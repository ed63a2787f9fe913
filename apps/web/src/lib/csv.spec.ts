import { csvField, toCsv } from './csv';

describe('csv', () => {
  it('quotes a field holding a comma, a quote or a line break, doubling its quotes', () => {
    expect([csvField('plain'), csvField('a,b'), csvField('say "hi"'), csvField('two\nlines'), csvField('cr\r')]).toEqual([
      'plain',
      '"a,b"',
      '"say ""hi"""',
      '"two\nlines"',
      '"cr\r"',
    ]);
  });
  it('writes empty cells for null and undefined, numbers and booleans as text, non-ASCII untouched', () => {
    expect(toCsv(['a', 'b', 'c', 'd', 'e'], [[null, undefined, 0.5, false, 'Zürich — 東京']])).toBe(
      'a,b,c,d,e\r\n,,0.5,false,Zürich — 東京\r\n',
    );
  });
});
