import fc from 'fast-check';
import { tokenTotalsOf, MAX_USAGE_TYPES, namedUsage, usageOfTotals } from './usage-details';

describe(usageOfTotals.name, () => {
  it('keeps every token of a total that covers its parts, in one type only', () => {
    const count = fc.integer({ min: 0, max: 1_000_000 });
    fc.assert(
      fc.property(count, count, count, count, (cached, write, extra, reasoning) => {
        const input = cached + write + extra;
        const usage = usageOfTotals({ input, output: reasoning + extra }, [
          { type: 'cached_input', of: 'input', count: cached },
          { type: 'cache_write', of: 'input', count: write },
          { type: 'reasoning', of: 'output', count: reasoning },
        ]);
        const sum = Object.values(usage ?? {}).reduce((a, b) => a + b, 0);
        expect(sum).toBe(input + reasoning + extra);
        expect(usage?.input).toBe(extra);
      }),
    );
  });

  it('has nothing to say without a count', () => {
    expect(usageOfTotals({}, [])).toBeUndefined();
  });
});

describe(namedUsage.name, () => {
  it('takes known names to their types (first met wins), keeps other names, drops totals and non-counts', () => {
    expect(
      namedUsage({
        prompt_tokens: 3,
        input: 9,
        completion_tokens: 2,
        total_tokens: 5,
        cached_tokens_x: 1,
        bad: -1,
        text: 'x',
        'no spaces': 1,
      }),
    ).toEqual({ input: 3, output: 2, cached_tokens_x: 1 });
  });

  it(`keeps at most ${MAX_USAGE_TYPES} types`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_USAGE_TYPES + 5 }, (_, i) => [`t${i}`, i]));
    expect(Object.keys(namedUsage(many) ?? {})).toHaveLength(MAX_USAGE_TYPES);
  });

  it('is undefined with nothing to keep', () => {
    expect(namedUsage({ total: 4 })).toBeUndefined();
  });
});

describe(tokenTotalsOf.name, () => {
  it.each([
    ['input and output', { input: 3, output: 4 }, { input: 3, output: 4 }],
    [
      'cache reads and writes are prompt, reasoning is completion',
      { input: 1, cached_input: 2, cache_write: 3, reasoning: 4 },
      { input: 6, output: 4 },
    ],
    ['a type whose name says its side', { input_audio: 5, output_audio: 6, image: 7 }, { input: 5, output: 6 }],
    ['one side only', { output: 2 }, { output: 2 }],
  ])('%s', (_, usage, totals) => expect(tokenTotalsOf(usage)).toEqual(totals));
});
