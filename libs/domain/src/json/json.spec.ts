import fc from 'fast-check';
import { jsonDepthExceeds } from './depth';
import { sanitizeJson, sanitizeText } from './sanitize';

const bytes = (s: string) => Buffer.from(s);

describe(jsonDepthExceeds.name, () => {
  it('counts nesting outside strings only', () => {
    expect(jsonDepthExceeds(bytes('[[[]]]'), 3)).toBe(false);
    expect(jsonDepthExceeds(bytes('[[[[]]]]'), 3)).toBe(true);
    expect(jsonDepthExceeds(bytes('{"a":"[[[[[[\\"[[["}'), 2)).toBe(false);
  });

  it('refuses 10,000 levels without recursion', () => {
    expect(jsonDepthExceeds(bytes('['.repeat(10_000) + ']'.repeat(10_000)), 64)).toBe(true);
  });

  it('agrees with the real depth of any JSON value', () => {
    const depth = (v: unknown): number =>
      Array.isArray(v) ? 1 + Math.max(0, ...v.map(depth)) : v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const d = depth(v);
        const text = JSON.stringify(v);
        expect(jsonDepthExceeds(bytes(text), d)).toBe(false);
        if (d > 0) expect(jsonDepthExceeds(bytes(text), d - 1)).toBe(true);
      }),
    );
  });
});

describe(sanitizeText.name, () => {
  it.each([
    ['a\u0000b', 'ab'],
    ['x\ud800y', 'x\ufffdy'],
    ['x\udc00', 'x\ufffd'],
    ['ok \ud83d\ude00', 'ok \ud83d\ude00'],
  ])('sanitizes %j', (input, expected) => expect(sanitizeText(input)).toBe(expected));

  it('reaches keys and nested values', () => {
    expect(sanitizeJson({ 'k\u0000': ['v\ud800', { n: 1 }] })).toEqual({ k: ['v\ufffd', { n: 1 }] });
  });

  it('always yields text that Postgres accepts', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = sanitizeText(s);
        expect(out.includes('\u0000')).toBe(false);
        expect(out.isWellFormed()).toBe(true);
      }),
    );
  });
});
