import { BUILT_IN_PRICES } from './built-in-prices';
import { validatePriceDefinition } from './price-definition';

const VALID = { id: 'm-1', modelName: 'm', matchPattern: '^m$', startDate: '2025-01-01T00:00:00Z', prices: { input: 1e-6, output: 2e-6 } };

describe(validatePriceDefinition.name, () => {
  it.each(BUILT_IN_PRICES.map((d) => [d.id, d]))('accepts the built-in definition %s, with its source and date', (_, definition) => {
    expect(validatePriceDefinition(definition)).toEqual(definition);
    expect(definition.source).toMatch(/^https:\/\//);
    expect(definition.readOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('has one built-in definition per id, and one per model and start date', () => {
    expect(new Set(BUILT_IN_PRICES.map((d) => d.id)).size).toBe(BUILT_IN_PRICES.length);
    expect(new Set(BUILT_IN_PRICES.map((d) => `${d.modelName} ${d.startDate}`)).size).toBe(BUILT_IN_PRICES.length);
  });

  it('reads the start date as canonical UTC', () => {
    expect(validatePriceDefinition(VALID).startDate).toBe('2025-01-01T00:00:00.000Z');
  });

  it.each([
    [{ ...VALID, id: '' }, 'id: must be a string of 1 to 200 characters'],
    [{ ...VALID, matchPattern: 'm' }, 'matchPattern: must be anchored: start with ^ and end with $'],
    [
      { ...VALID, matchPattern: '^(m+)+$' },
      'matchPattern: must not repeat a group that holds an unbounded quantifier or an alternation (it could take long to match)',
    ],
    [{ ...VALID, matchPattern: '^[$' }, 'matchPattern: must be a valid regular expression'],
    [{ ...VALID, startDate: 'soon' }, expect.stringMatching(/^startDate: must be an ISO 8601 timestamp/)],
    [{ ...VALID, prices: {} }, 'prices: must name 1 to 32 usage types'],
    [{ ...VALID, prices: { input: -1e-6 } }, 'prices.input: must be a price per token from 0 to 1000000'],
    [{ ...VALID, prices: { input: '1' } }, 'prices.input: must be a price per token from 0 to 1000000'],
    [{ ...VALID, prices: { 'in put': 1 } }, 'prices.in put: must be a price per token from 0 to 1000000'],
    [[], 'definition: must be an object'],
  ])('refuses %j', (plain, message) => {
    expect(() => validatePriceDefinition(plain)).toThrow(expect.objectContaining({ message }));
  });
});
