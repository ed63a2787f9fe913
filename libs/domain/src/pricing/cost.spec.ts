import fc from 'fast-check';
import { costOf, priceOf } from './cost';

describe(costOf.name, () => {
  const PRICES = { input: 2e-6, output: 8e-6, cached_input: 0.5e-6 };

  it('prices each type by its own price, or by the type it is billed like', () => {
    expect(priceOf('cached_input', PRICES)).toBe(0.5e-6);
    expect(priceOf('cache_write', PRICES)).toBe(2e-6);
    expect(priceOf('reasoning', PRICES)).toBe(8e-6);
    expect(priceOf('input_audio', PRICES)).toBeUndefined();
  });

  it('names the types it cannot price and leaves them out of the total, never as free', () => {
    const cost = costOf({ input: 1000, reasoning: 10, input_audio: 5, output_audio: 0 }, PRICES);
    expect(cost.details).toEqual({ input: 1000 * 2e-6, reasoning: 10 * 8e-6 });
    expect(cost.unpriced).toEqual(['input_audio']);
    expect(cost.total).toBeCloseTo(1000 * 2e-6 + 10 * 8e-6, 15);
  });

  it('is the sum over the usage types of tokens × price', () => {
    const type = fc.constantFrom('input', 'output', 'cached_input', 'cache_write', 'reasoning', 'input_audio', 'other');
    const usage = fc.dictionary(type, fc.integer({ min: 0, max: 10_000_000 }));
    const prices = fc.dictionary(type, fc.double({ min: 0, max: 1e-3, noNaN: true }), { minKeys: 1 });
    fc.assert(
      fc.property(usage, prices, (u, p) => {
        const cost = costOf(u, p);
        let expected = 0;
        for (const [t, tokens] of Object.entries(u)) {
          const price = priceOf(t, p);
          if (price === undefined) {
            expect(cost.unpriced.includes(t)).toBe(tokens > 0);
            continue;
          }
          expect(cost.details[t]).toBe(tokens * price);
          expected += tokens * price;
        }
        expect(cost.total).toBeCloseTo(expected, 9);
        expect(cost.total).toBeCloseTo(
          Object.values(cost.details).reduce((a, b) => a + b, 0),
          9,
        );
      }),
    );
  });
});
