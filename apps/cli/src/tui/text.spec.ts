import fc from 'fast-check';
import { displayWidth, fit, oneLine, truncate, valueLines, valuePreview } from './text';

describe('text', () => {
  it('puts a value with newlines, tabs and escape sequences on one line', () => {
    expect(oneLine('  a\nb\t\tc\u001b[31m red\r\n')).toBe('a b c [31m red');
  });

  it('counts East Asian wide characters and emoji as two columns and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('🙂')).toBe(2);
    expect(displayWidth('e\u0301')).toBe(1);
  });

  it('cuts with an ellipsis only when the text is too wide', () => {
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate('hello world', 6)).toBe('hello…');
    expect(truncate('日本語です', 5)).toBe('日本…');
    expect(truncate('anything', 0)).toBe('');
  });

  it('fits any text to exactly the width asked, left or right aligned, with no control character left', () => {
    expect(fit('ab', 4)).toBe('ab  ');
    expect(fit('ab', 4, 'right')).toBe('  ab');
    expect(fit('  indented', 12)).toBe('  indented  ');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 120 }), (text, width) => {
        const out = fit(text, width);
        // A wide character that does not fit leaves one column of padding instead.
        expect(displayWidth(out)).toBe(width);
        // eslint-disable-next-line no-control-regex -- checking that none is left
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }),
    );
  });

  it('shows strings as their lines and other values as pretty JSON', () => {
    expect(valueLines('one\r\ntwo\tx')).toEqual(['one', 'two  x']);
    expect(valueLines({ a: [1] })).toEqual(['{', '  "a": [', '    1', '  ]', '}']);
    expect(valueLines(null)).toEqual([]);
    expect(valuePreview({ q: 'why?\n' })).toBe('{"q":"why?\\n"}');
  });
});
