import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { SecretBox, SecretBoxError } from './secret-box';

describe(SecretBox.name, () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed, for any text, and seals the same text differently each time', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string(), (text, context) => {
        const sealed = box.seal(text, context);
        expect(box.open(sealed, context)).toBe(text);
        expect(box.seal(text, context)).not.toBe(sealed);
      }),
    );
  });

  it('writes the versioned form, with nothing of the plaintext in it', () => {
    const sealed = box.seal('Bearer hook-secret', 'evaluator:1:headers');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain('hook-secret');
  });

  it('refuses a value under another key, in another context, or changed anywhere', () => {
    const sealed = box.seal('Bearer hook-secret', 'evaluator:1:headers');
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'evaluator:1:headers')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'evaluator:2:headers')).toThrow(SecretBoxError);
    fc.assert(
      fc.property(fc.nat(sealed.length - 1), fc.constantFrom(...'ABCxyz019-_.'), (at, char) => {
        fc.pre(sealed[at] !== char);
        const changed = sealed.slice(0, at) + char + sealed.slice(at + 1);
        expect(() => box.open(changed, 'evaluator:1:headers')).toThrow(SecretBoxError);
      }),
    );
    for (const notSealed of ['', 'plain', 'v2.a.b.c', 'v1.a.b', `${sealed}.x`])
      expect(() => box.open(notSealed, 'evaluator:1:headers')).toThrow(SecretBoxError);
  });
});
