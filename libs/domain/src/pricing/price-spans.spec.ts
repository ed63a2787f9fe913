import { type SpanDelta, versionOf } from '../telemetry/records';
import { mergeSpan } from '../telemetry/merge';
import { PRICE_VERSION_TIME, definitionIdOfCostSource, priceCostSource, priceSpan } from './price-spans';
import { PriceTable } from './price-table';

const TABLE = new PriceTable([
  {
    id: 'm-old',
    modelName: 'm',
    matchPattern: '^m$',
    startDate: '2025-01-01T00:00:00.000Z',
    prices: { input: 2, output: 10, cached_input: 1 },
  },
  { id: 'm-new', modelName: 'm', matchPattern: '^m$', startDate: '2025-06-01T00:00:00.000Z', prices: { input: 1, output: 5 } },
]);
const V1 = versionOf('2025-07-01T00:00:00.000Z', 'e1');
const V2 = versionOf('2025-07-02T00:00:00.000Z', 'e2');

const span = (values: SpanDelta['values'], version = V1): SpanDelta => ({
  projectId: 'p',
  id: 's',
  otelSpanId: null,
  externalId: null,
  createdAt: '2025-07-01T00:00:00.000Z',
  values,
  versions: Object.fromEntries(Object.keys(values).map((k) => [k, version])),
});

const pricedSpan = (delta: SpanDelta, table: PriceTable): SpanDelta => {
  priceSpan(delta, table);
  return delta;
};

describe(priceSpan.name, () => {
  it('prices usage by the definition valid at the span start, each type, below every client version', () => {
    const priced = pricedSpan(
      span({ model: 'm', startTime: '2025-03-01T00:00:00.000Z', usageDetails: { input: 10, cached_input: 4, reasoning: 1 } }),
      TABLE,
    );
    expect(priced.values).toMatchObject({
      cost: 20 + 4 + 10,
      costSource: 'price:m-old',
      costDetails: { input: 20, cached_input: 4, reasoning: 10 },
      unpricedUsage: [],
    });
    const version = versionOf(PRICE_VERSION_TIME, `price:${V1}`);
    expect(priced.versions).toMatchObject({ cost: version, costSource: version, costDetails: version, unpricedUsage: version });
    expect(
      pricedSpan(span({ model: 'M', startTime: '2025-06-01T00:00:00.000Z', usageDetails: { input: 10 } }), TABLE).values.costSource,
    ).toBe('price:m-new');
  });

  it('keeps a client cost, saying so, in any order of the events', () => {
    const client = pricedSpan(span({ cost: 0.5 }, V1), TABLE);
    expect(client.values).toMatchObject({ cost: 0.5, costSource: 'client', costDetails: {}, unpricedUsage: [] });
    const computed = pricedSpan(span({ model: 'm', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input: 10 } }, V2), TABLE);
    const unpriced = pricedSpan(
      span({ model: 'new-model', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input: 10 } }, V2),
      TABLE,
    );
    for (const other of [computed, unpriced]) {
      for (const merged of [mergeSpan(client, other), mergeSpan(other, client)]) {
        expect(merged.values).toMatchObject({ cost: 0.5, costSource: 'client', costDetails: {}, unpricedUsage: [] });
      }
    }
  });

  it('names the usage types with tokens it could not price, sorted, at the version a computed cost has', () => {
    const version = versionOf(PRICE_VERSION_TIME, `price:${V1}`);
    const partly = pricedSpan(
      span({ model: 'm', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { output_audio: 2, input: 10, input_audio: 3, image: 0 } }),
      TABLE,
    );
    expect(partly.values).toMatchObject({ cost: 10, costSource: 'price:m-new', unpricedUsage: ['input_audio', 'output_audio'] });
    expect(partly.versions.unpricedUsage).toBe(version);
    for (const [values, unpricedUsage] of [
      [
        { model: 'unknown', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { output: 2, input: 1, cached_input: 0 } },
        ['input', 'output'],
      ],
      [{ model: 'm', startTime: '2024-01-01T00:00:00.000Z', usageDetails: { input: 1 } }, ['input']],
      [{ model: 'm', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input_audio: 3 } }, ['input_audio']],
    ] as [SpanDelta['values'], string[]][]) {
      const priced = pricedSpan(span(values), TABLE);
      expect(priced.values).toEqual({ ...values, unpricedUsage });
      expect(priced.versions.unpricedUsage).toBe(version);
      expect(priced.versions.cost).toBeUndefined();
    }
  });

  it('a newer priced usage clears what an older one left unpriced, in any order', () => {
    const unpriced = pricedSpan(span({ model: 'm', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input_audio: 3 } }, V1), TABLE);
    const priced = pricedSpan(span({ model: 'm', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input: 3 } }, V2), TABLE);
    for (const merged of [mergeSpan(unpriced, priced), mergeSpan(priced, unpriced)]) {
      expect(merged.values).toMatchObject({ cost: 3, costSource: 'price:m-new', unpricedUsage: [] });
    }
  });

  it('leaves a span without a model, a start or usage with tokens as it is', () => {
    for (const values of [
      { startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input: 1 } },
      { model: 'm', usageDetails: { input: 1 } },
      { model: 'm', startTime: '2025-07-01T00:00:00.000Z' },
      { model: 'unknown', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input: 0 } },
    ] as SpanDelta['values'][]) {
      const plain = span(values);
      expect(pricedSpan(plain, TABLE)).toEqual(span(values));
    }
  });

  it('priced again by a table without the model, keeps no computed cost, only the usage it could not price', () => {
    const priced = pricedSpan(span({ model: 'm', startTime: '2025-07-01T00:00:00.000Z', usageDetails: { input: 10 } }), TABLE);
    expect(priced.values.cost).toBe(10);
    const again = pricedSpan(priced, new PriceTable([]));
    expect(Object.keys(again.values).sort()).toEqual(['model', 'startTime', 'unpricedUsage', 'usageDetails']);
    expect(Object.keys(again.versions).sort()).toEqual(['model', 'startTime', 'unpricedUsage', 'usageDetails']);
    expect(again.values.unpricedUsage).toEqual(['input']);
  });
});

describe(definitionIdOfCostSource.name, () => {
  it('reads the definition id back from a computed cost source, none from a client cost', () => {
    expect(definitionIdOfCostSource(priceCostSource('o3-2025-06'))).toBe('o3-2025-06');
    expect(definitionIdOfCostSource('client')).toBeNull();
    expect(definitionIdOfCostSource(null)).toBeNull();
  });
});
