import { DomainError } from '../errors';
import { unpricedUsageOf, validateUnpricedQuery } from './unpriced-usage';

const refusal = (input: unknown): string => {
  try {
    validateUnpricedQuery(input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).message;
  }
  throw new Error('accepted');
};

describe(validateUnpricedQuery.name, () => {
  it('reads an open range, or whole 5-minute buckets around the one asked', () => {
    expect(validateUnpricedQuery({})).toEqual({ from: null, to: null });
    expect(validateUnpricedQuery({ from: '2025-09-01T10:03:00+00:00', to: '2025-09-01T10:06:00Z' })).toEqual({
      from: new Date('2025-09-01T10:00:00Z'),
      to: new Date('2025-09-01T10:10:00Z'),
    });
    expect(validateUnpricedQuery({ to: '2025-09-01T10:05:00Z' })).toEqual({ from: null, to: new Date('2025-09-01T10:05:00Z') });
  });

  it.each([
    [{ from: 'yesterday' }, /^from: must be/],
    [{ to: 3 }, /^to: must be/],
    [{ from: '2025-09-01T10:00:00Z', to: '2025-09-01T10:00:00Z' }, /^to: must be after from$/],
    [[], /^query must be an object$/],
  ])('refuses %j naming the field', (input, message) => {
    expect(refusal(input)).toMatch(message);
  });
});

describe(unpricedUsageOf.name, () => {
  it('groups the types per model, the model last seen first, its types by name, first and last over its types', () => {
    const row = (model: string, usageType: string, typeSpans: number, modelSpans: number, firstSeen: string, lastSeen: string) => ({
      model,
      usageType,
      typeSpans,
      modelSpans,
      firstSeen,
      lastSeen,
    });
    const usage = unpricedUsageOf({ from: null, to: new Date('2025-09-02T00:00:00Z') }, [
      row('a', 'output', 1, 3, '2025-09-01T02:00:00.000Z', '2025-09-01T05:00:00.000Z'),
      row('b', 'input', 1, 1, '2025-09-01T03:00:00.000Z', '2025-09-01T04:00:00.000Z'),
      row('a', 'input', 3, 3, '2025-09-01T01:00:00.000Z', '2025-09-01T03:00:00.000Z'),
    ]);
    expect(usage.from).toBeNull();
    expect(usage.to).toBe('2025-09-02T00:00:00.000Z');
    expect(usage.models).toEqual([
      {
        model: 'a',
        spans: 3,
        firstSeen: '2025-09-01T01:00:00.000Z',
        lastSeen: '2025-09-01T05:00:00.000Z',
        usageTypes: [
          { type: 'input', spans: 3, firstSeen: '2025-09-01T01:00:00.000Z', lastSeen: '2025-09-01T03:00:00.000Z' },
          { type: 'output', spans: 1, firstSeen: '2025-09-01T02:00:00.000Z', lastSeen: '2025-09-01T05:00:00.000Z' },
        ],
      },
      {
        model: 'b',
        spans: 1,
        firstSeen: '2025-09-01T03:00:00.000Z',
        lastSeen: '2025-09-01T04:00:00.000Z',
        usageTypes: [{ type: 'input', spans: 1, firstSeen: '2025-09-01T03:00:00.000Z', lastSeen: '2025-09-01T04:00:00.000Z' }],
      },
    ]);
  });
});
