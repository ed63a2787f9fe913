import fc from 'fast-check';
import { parseJsonSafely } from './parse';

describe(parseJsonSafely.name, () => {
  it.each([
    ['a literal __proto__ key', '{"a":1,"__proto__":{"polluted":true}}'],
    ['a __proto__ key spelled with \\u escapes', '{"a":1,"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":true}}'],
    ['a constructor key', '{"a":1,"constructor":{"prototype":{"polluted":true}}}'],
  ])('refuses %s, or drops it', (_name, text) => {
    expect(() => parseJsonSafely(text, 'error')).toThrow();
    const parsed = parseJsonSafely(text, 'remove') as Record<string, unknown>;
    expect(parsed.a).toBe(1);
    expect(Object.hasOwn(parsed, '__proto__') || Object.hasOwn(parsed, 'constructor')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('parses any other JSON exactly as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        fc.pre(!/"(__proto__|constructor)":/.test(text));
        expect(parseJsonSafely(text, 'error')).toEqual(JSON.parse(text));
      }),
    );
    expect(parseJsonSafely('{"note":"a constructor and __proto__","s":"\\u00e9"}', 'error')).toEqual({
      note: 'a constructor and __proto__',
      s: 'é',
    });
  });
});
