import fc from 'fast-check';
import { type TraceFilter, formatTraceFilter, isEmptyFilter, parseTraceFilter } from './trace-filter';

describe(parseTraceFilter.name, () => {
  it.each([
    ['', {}],
    ['   ', {}],
    ['checkout flow', { name: 'checkout flow' }],
    ['name:checkout', { name: 'checkout' }],
    ['user:alice tag:prod tag:beta', { userId: 'alice', tags: ['prod', 'beta'] }],
    ['name:"a \\"quoted\\" name" user:u1', { name: 'a "quoted" name', userId: 'u1' }],
    ['http:get user:bob', { name: 'http:get', userId: 'bob' }],
    ['"two words" tag:x', { name: 'two words', tags: ['x'] }],
  ])('reads %p', (text, filter) => expect(parseTraceFilter(text)).toEqual({ ok: true, filter }));

  it.each([
    ['name:"open', 'a quote is not closed'],
    ['tag:', 'tag: needs a value'],
    ['user:a user:b', 'user: is given twice'],
    ['name:a name:b', 'name: is given twice'],
    ['name:a word', 'give the name either as words or as name:, not both'],
  ])('refuses %p, saying why', (text, error) => expect(parseTraceFilter(text)).toEqual({ ok: false, error }));

  it('reads back every filter it writes', () => {
    const value = fc.string({ minLength: 1, unit: 'grapheme' });
    const filter: fc.Arbitrary<TraceFilter> = fc.record(
      { name: value, userId: value, tags: fc.array(value, { minLength: 1, maxLength: 3 }) },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(filter, (f) => expect(parseTraceFilter(formatTraceFilter(f))).toEqual({ ok: true, filter: f })));
  });

  it('never throws, whatever is typed', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => void parseTraceFilter(text)));
  });

  it('knows an empty filter', () => {
    expect(isEmptyFilter({})).toBe(true);
    expect(isEmptyFilter({ tags: [] })).toBe(true);
    expect(isEmptyFilter({ userId: 'u' })).toBe(false);
  });
});

describe(formatTraceFilter.name, () => {
  it('writes plain values bare and quotes the rest', () => {
    expect(formatTraceFilter({ name: 'two words', userId: 'alice', tags: ['a"b', 'prod'] })).toBe(
      'name:"two words" user:alice tag:"a\\"b" tag:prod',
    );
  });
});
