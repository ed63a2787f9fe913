import { costSourceText, usageCostRows } from './usage-costs';

const span = {
  usageDetails: { input_audio: 5, output: 10, input: 600, cached_input: 400, image: 1 },
  costDetails: { input: 0.0018, cached_input: 0.00012 },
  unpricedUsage: ['input_audio'],
  costSource: 'price:claude-sonnet-4-5',
  costDefinition: { id: 'claude-sonnet-4-5', modelName: 'claude-sonnet-4-5' },
};

describe(usageCostRows.name, () => {
  it('gives each usage type its tokens and its cost, known types first, and marks the types left unpriced', () => {
    expect(usageCostRows({ ...span, unpricedUsage: ['image', 'input_audio'] })).toEqual([
      { type: 'input', tokens: 600, cost: 0.0018, unpriced: false },
      { type: 'cached_input', tokens: 400, cost: 0.00012, unpriced: false },
      { type: 'output', tokens: 10, cost: null, unpriced: false },
      { type: 'image', tokens: 1, cost: null, unpriced: true },
      { type: 'input_audio', tokens: 5, cost: null, unpriced: true },
    ]);
  });
});

describe(costSourceText.name, () => {
  it('names the client or the definition and the model it prices', () => {
    expect(costSourceText(span)).toBe('price table: claude-sonnet-4-5 (price:claude-sonnet-4-5)');
    expect(costSourceText({ ...span, costDefinition: null, costSource: 'price:p-1' })).toBe('price table (price:p-1)');
    expect(costSourceText({ ...span, costSource: 'client' })).toBe('sent by the client');
    expect(costSourceText({ ...span, costSource: null })).toBeNull();
  });
});
