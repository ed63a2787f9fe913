import { BUILT_IN_PRICES } from './built-in-prices';
import type { PriceDefinition } from './price-definition';
import { PriceTable } from './price-table';

const at = (iso: string) => Date.parse(iso);
const NOW = at('2026-01-01T00:00:00Z');

describe(PriceTable.name, () => {
  const table = new PriceTable(BUILT_IN_PRICES);

  it.each([
    ['gpt-4o', 'gpt-4o'],
    ['GPT-4o-2024-08-06', 'gpt-4o'],
    ['openai/gpt-4o-mini', 'gpt-4o-mini'],
    ['gpt-4.1-nano-2025-04-14', 'gpt-4.1-nano'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['anthropic/claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
    ['gemini-2.5-flash', 'gemini-2.5-flash'],
    ['models/gemini-2.0-flash-001', 'gemini-2.0-flash'],
    ['mistral-large-latest', 'mistral-large'],
    ['llama-3.3-70b-versatile', 'llama-3.3-70b-versatile'],
  ])('prices %s by %s', (model, id) => {
    expect(table.definitionAt(model, NOW)?.id).toBe(id);
  });

  it.each(['gpt-4o-2024-05-13', 'gpt-4o-mini-search', 'gpt4o', 'my-model', ''])('prices nothing for %j', (model) => {
    expect(table.definitionAt(model, NOW)).toBeUndefined();
  });

  it('takes the definition valid at the time: the latest start at or before it', () => {
    expect(table.definitionAt('o3', at('2025-06-09T23:59:59.999Z'))?.id).toBe('o3-2025-04');
    expect(table.definitionAt('o3-2025-04-16', at('2025-06-10T00:00:00Z'))?.id).toBe('o3-2025-06');
  });

  it('prices nothing before the first definition of the model starts', () => {
    const dated: PriceDefinition = {
      id: 'x-2025',
      modelName: 'x',
      matchPattern: '^x$',
      startDate: '2025-01-01T00:00:00.000Z',
      prices: { input: 1 },
    };
    expect(new PriceTable([dated]).definitionAt('x', at('2024-12-31T00:00:00Z'))).toBeUndefined();
  });

  it('takes the first model in table order whose pattern matches, then its date', () => {
    const wide: PriceDefinition = {
      id: 'any',
      modelName: 'any',
      matchPattern: '^.*$',
      startDate: '2020-01-01T00:00:00.000Z',
      prices: { input: 1 },
    };
    const narrow: PriceDefinition = {
      id: 'x',
      modelName: 'x',
      matchPattern: '^x$',
      startDate: '2020-01-01T00:00:00.000Z',
      prices: { input: 2 },
    };
    expect(new PriceTable([narrow, wide]).definitionAt('x', NOW)?.id).toBe('x');
    expect(new PriceTable([wide, narrow]).definitionAt('x', NOW)?.id).toBe('any');
  });

  it('answers the same for a name it remembers', () => {
    const first = table.definitionAt('claude-3-haiku-20240307', NOW);
    expect(table.definitionAt('claude-3-haiku-20240307', NOW)).toBe(first);
    expect(first?.id).toBe('claude-3-haiku');
  });
});
