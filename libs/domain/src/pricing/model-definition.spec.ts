import { DomainError } from '../errors';
import { type ModelDefinition, SINCE_ALWAYS, refuseOverlap, validateModelDefinition } from './model-definition';
import { priceSpan } from './price-spans';
import { LayeredPrices, PriceTable } from './price-table';
import { pricesFor } from './price-tiers';
import { BUILT_IN_PRICES } from './built-in-prices';
import { type SpanDelta, versionOf } from '../telemetry/records';

const VALID = { modelName: 'my-gpt', matchPattern: '(?i)^my-gpt(-\\d+)?$', unit: 'TOKENS', prices: { input: 1e-6, output: 2e-6 } };

const refusal = (input: unknown): string => {
  try {
    validateModelDefinition(input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe(validateModelDefinition.name, () => {
  it("accepts Langfuse's (?i) prefix, dropping it, and defaults the start date and unit", () => {
    expect(validateModelDefinition({ modelName: 'm', matchPattern: '(?i)^m$', prices: { input: 1 } })).toEqual({
      modelName: 'm',
      matchPattern: '^m$',
      startDate: SINCE_ALWAYS,
      unit: 'TOKENS',
      prices: { input: 1 },
      tiers: [],
    });
  });

  it.each([
    [{ ...VALID, matchPattern: '^my-gpt($' }, /^matchPattern: must be a valid regular expression/],
    [{ ...VALID, matchPattern: 'my-gpt' }, /^matchPattern: must be anchored/],
    [{ ...VALID, matchPattern: '^(a+)+$' }, /^matchPattern: must not repeat a group/],
    [{ ...VALID, prices: { input: -1 } }, /^prices\.input: must be a price per token from 0/],
    [{ ...VALID, unit: 'CHARACTERS' }, /^unit: must be one of TOKENS/],
    [{ ...VALID, startDate: 'yesterday' }, /^startDate: must be/],
    [{ ...VALID, modelName: '' }, /^modelName: /],
    [
      {
        ...VALID,
        tiers: [
          { name: 'long', priority: 1, conditions: [{ usageDetailPattern: 'input', operator: 'over', value: 1 }], prices: { input: 2 } },
        ],
      },
      /^tiers\[0\]\.conditions\[0\]\.operator: must be one of/,
    ],
    [
      { ...VALID, tiers: [{ name: 'long', priority: 1, conditions: [], prices: { input: 2 } }] },
      /^tiers\[0\]\.conditions: must be an array of 1 to/,
    ],
    [
      {
        ...VALID,
        tiers: [
          { name: 'a', priority: 1, conditions: [{ usageDetailPattern: 'input', operator: 'gt', value: 1 }], prices: { input: 2 } },
          { name: 'b', priority: 1, conditions: [{ usageDetailPattern: 'input', operator: 'gt', value: 2 }], prices: { input: 3 } },
        ],
      },
      /^tiers\[1\]: must have a name and a priority no other tier has/,
    ],
  ])('refuses %j naming the field', (input, message) => {
    expect(refusal(input)).toMatch(message);
  });
});

describe(refuseOverlap.name, () => {
  const other: ModelDefinition = {
    id: 'd1',
    projectId: 'p',
    modelName: 'my-gpt',
    matchPattern: '^my-gpt$',
    startDate: '2025-01-01T00:00:00.000Z',
    unit: 'TOKENS',
    prices: { input: 1 },
    createdAt: '',
    updatedAt: '',
  };

  it('refuses the same pattern and start date, naming startDate; another date or the definition itself passes', () => {
    expect(() => refuseOverlap({ matchPattern: '^my-gpt$', startDate: '2025-01-01T00:00:00Z' }, [other])).toThrow(
      /^startDate: definition d1/,
    );
    expect(() => refuseOverlap({ matchPattern: '^my-gpt$', startDate: '2025-02-01T00:00:00Z' }, [other])).not.toThrow();
    expect(() => refuseOverlap({ matchPattern: '^my-gpt$', startDate: '2025-01-01T00:00:00Z' }, [other], 'd1')).not.toThrow();
  });
});

describe(LayeredPrices.name, () => {
  const own = new PriceTable([
    { id: 'own-4o', modelName: 'gpt-4o', matchPattern: '^gpt-4o$', startDate: '2025-06-01T00:00:00.000Z', prices: { input: 1, output: 1 } },
  ]);
  const prices = new LayeredPrices([own, new PriceTable(BUILT_IN_PRICES)]);

  it("prices with the project's definition from its start date, and with the built-in one before it", () => {
    expect(prices.definitionAt('gpt-4o', Date.parse('2025-07-01T00:00:00Z'))?.id).toBe('own-4o');
    expect(prices.definitionAt('GPT-4O', Date.parse('2025-07-01T00:00:00Z'))?.id).toBe('own-4o');
    expect(prices.definitionAt('gpt-4o', Date.parse('2025-05-01T00:00:00Z'))?.id).not.toBe('own-4o');
    expect(prices.definitionAt('gpt-4o', Date.parse('2025-05-01T00:00:00Z'))).toBeDefined();
  });

  it('keeps two patterns of one model name apart', () => {
    const table = new PriceTable([
      { id: 'a', modelName: 'm', matchPattern: '^m-a$', startDate: SINCE_ALWAYS, prices: { input: 1 } },
      { id: 'b', modelName: 'm', matchPattern: '^m-b$', startDate: SINCE_ALWAYS, prices: { input: 2 } },
    ]);
    expect(table.definitionAt('m-b', 0)?.id).toBe('b');
  });
});

describe(pricesFor.name, () => {
  const definition = validateModelDefinition({
    ...VALID,
    prices: { input: 1, output: 2 },
    tiers: [
      {
        name: 'huge',
        priority: 2,
        conditions: [{ usageDetailPattern: '^input', operator: 'gt', value: 1000 }],
        prices: { input: 5, output: 6 },
      },
      {
        name: 'long',
        priority: 1,
        conditions: [{ usageDetailPattern: '^input', operator: 'gt', value: 100 }],
        prices: { input: 3, output: 4 },
      },
    ],
  });

  it('takes the first tier by priority whose conditions hold on the summed usage, else the default prices', () => {
    expect(pricesFor(definition, { input: 10, output: 5 })).toEqual({ input: 1, output: 2 });
    expect(pricesFor(definition, { input: 60, input_cached: 60 })).toEqual({ input: 3, output: 4 });
    expect(pricesFor(definition, { input: 5000 })).toEqual({ input: 3, output: 4 });
  });

  it('prices a span by its tier', () => {
    const table = new PriceTable([{ id: 'd', ...definition }]);
    const span: SpanDelta = {
      projectId: 'p',
      id: 's',
      otelSpanId: null,
      externalId: null,
      createdAt: '2025-07-01T00:00:00.000Z',
      values: { model: 'my-gpt', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input: 200, output: 10 } },
      versions: {},
    };
    const v = versionOf('2025-07-01T00:00:00.000Z', 'e');
    span.versions = { model: v, startTime: v, usageDetails: v };
    priceSpan(span, table);
    expect(span.values.cost).toBe(200 * 3 + 10 * 4);
    // Pricing again with another table replaces the computed cost.
    priceSpan(span, new PriceTable([{ id: 'd2', ...definition, prices: { input: 1, output: 1 }, tiers: [] }]));
    expect(span.values).toMatchObject({ cost: 210, costSource: 'price:d2' });
  });
});
