import fc from 'fast-check';
import { jsonDepthExceeds } from './depth';
import { isStorableText, sanitizeJson, sanitizeText } from './sanitize';

const bytes = (s: string) => Buffer.from(s);

/** The byte-by-byte scan that jsonDepthExceeds replaced: the verdicts it must keep. */
function referenceDepthExceeds(text: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const b = text[i];
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++depth > limit) return true;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return false;
}

/** Characters that matter to the scan, and multi-byte ones around them. */
const tricky = fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', '\\\\"', 'a', ' ', ':', ',', 'é', '€', '😀', '\u2028');

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
      Array.isArray(v)
        ? 1 + Math.max(0, ...v.map(depth))
        : v !== null && typeof v === 'object'
          ? 1 + Math.max(0, ...Object.values(v).map(depth))
          : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const d = depth(v);
        const text = JSON.stringify(v);
        expect(jsonDepthExceeds(bytes(text), d)).toBe(false);
        if (d > 0) expect(jsonDepthExceeds(bytes(text), d - 1)).toBe(true);
      }),
    );
  });

  it('gives the byte-by-byte verdict on JSON whose strings hold brackets, quotes and backslashes', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 8, stringUnit: tricky }), fc.nat(10), (text, limit) => {
        expect(jsonDepthExceeds(bytes(text), limit)).toBe(referenceDepthExceeds(bytes(text), limit));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the byte-by-byte verdict on any text: unbalanced, unterminated, a trailing backslash', () => {
    fc.assert(
      fc.property(fc.string({ unit: tricky, maxLength: 200 }), fc.nat(10), (text, limit) => {
        expect(jsonDepthExceeds(bytes(text), limit)).toBe(referenceDepthExceeds(bytes(text), limit));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads only its own bytes of a Uint8Array view into a larger buffer', () => {
    fc.assert(
      fc.property(fc.string({ unit: tricky, maxLength: 100 }), fc.nat(10), (text, limit) => {
        const inner = bytes(text);
        const view = new Uint8Array([0x5b, 0x22, ...inner, 0x5b, 0x22]).subarray(2, 2 + inner.length);
        expect(jsonDepthExceeds(view, limit)).toBe(referenceDepthExceeds(inner, limit));
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

  it('changes exactly the text isStorableText refuses', () => {
    const unit = fc.oneof(fc.string({ unit: 'binary', maxLength: 3 }), fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d\ude00'));
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 8 }).map((parts) => parts.join('')),
        (s) => {
          expect(sanitizeText(s) !== s).toBe(!isStorableText(s));
          expect(isStorableText(sanitizeText(s))).toBe(true);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
