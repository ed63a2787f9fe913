import fc from 'fast-check';
import { ifNoneMatchNames, strongEntityTag } from './entity-tag';

describe(strongEntityTag.name, () => {
  const version = {
    name: 'greeting',
    version: 3,
    template: 'Hi',
    labels: ['latest', 'production'],
    config: {},
    commitMessage: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  };

  it('is a quoted tag, the same for the same representation', () => {
    const tag = strongEntityTag(['project-a', version]);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(strongEntityTag(['project-a', { ...version }])).toBe(tag);
  });

  it('changes with the project, the version, its labels or its content', () => {
    const tag = strongEntityTag(['project-a', version]);
    const others = [
      strongEntityTag(['project-b', version]),
      strongEntityTag(['project-a', { ...version, version: 4 }]),
      strongEntityTag(['project-a', { ...version, labels: ['production'] }]),
      strongEntityTag(['project-a', { ...version, template: 'Hello' }]),
    ];
    expect(new Set([tag, ...others]).size).toBe(5);
  });
});

describe(ifNoneMatchNames.name, () => {
  const etag = '"abc"';

  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc" , "y"', true],
    ['*', true],
    [' * ', true],
    ['"abcd"', false],
    ['"ab"', false],
    ['abc', false],
    ['', false],
    [undefined, false],
  ])('%j → %s', (header, expected) => {
    expect(ifNoneMatchNames(header, etag)).toBe(expected);
  });

  it('finds the tag anywhere in any list of tags, weak or strong, and only when it is there', () => {
    const opaque = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
    const member = fc.tuple(fc.boolean(), opaque).map(([weak, tag]) => ({ tag, text: `${weak ? 'W/' : ''}"${tag}"` }));
    fc.assert(
      fc.property(opaque, fc.array(member, { maxLength: 6 }), fc.constantFrom(',', ', ', ' ,'), (current, members, separator) => {
        const header = members.map((m) => m.text).join(separator);
        expect(ifNoneMatchNames(header, `"${current}"`)).toBe(members.some((m) => m.tag === current));
      }),
    );
  });
});
