import { DomainError } from '@app/domain';
import { parseJsonBytes } from './json-body-parser';

const parse = (text: string) => parseJsonBytes(Buffer.from(text, 'utf8'));
const refusal = (text: string): string => {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  throw new Error(`${text} was accepted`);
};

describe(parseJsonBytes.name, () => {
  it('parses ordinary bodies, a byte order mark included', () => {
    expect(parse('{"a":[1,"x",{"b":null}]}')).toEqual({ a: [1, 'x', { b: null }] });
    expect(parse('\ufeff{"a":1}')).toEqual({ a: 1 });
  });

  it.each([
    ['a literal __proto__ key', '{"a":1,"__proto__":{"polluted":true}}'],
    ['a __proto__ key spelled with \\u escapes', '{"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":true}}'],
    ['a literal constructor key', '{"constructor":{"prototype":{"polluted":true}}}'],
    ['a constructor key spelled with \\u escapes', '{"\\u0063onstructor":{"prototype":{"polluted":true}}}'],
  ])('refuses %s', (_, text) => {
    expect(refusal(text)).toBe('VALIDATION_ERROR');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps the names and escapes where they are harmless: in values', () => {
    expect(parse('{"note":"a constructor and __proto__","s":"\\u00e9t\\u00e9"}')).toEqual({
      note: 'a constructor and __proto__',
      s: 'été',
    });
  });

  it.each([
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])],
    ['nesting deeper than the limit', Buffer.from(`${'['.repeat(65)}${']'.repeat(65)}`)],
    ['a text that is not JSON', Buffer.from('{"a":')],
  ])('refuses %s', (_, body) => {
    expect(() => parseJsonBytes(body)).toThrow(DomainError);
  });
});
