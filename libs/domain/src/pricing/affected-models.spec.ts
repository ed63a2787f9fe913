import { changedPatterns, modelsMatching } from './affected-models';
import type { ModelDefinition } from './model-definition';

const definition = (id: string, matchPattern: string, prices = { input: 1e-6 }): ModelDefinition => ({
  id,
  projectId: 'p',
  modelName: id,
  matchPattern,
  startDate: '1970-01-01T00:00:00.000Z',
  unit: 'TOKENS',
  prices,
  createdAt: '2026-11-27T00:00:00.000Z',
  updatedAt: '2026-11-27T00:00:00.000Z',
});

describe(changedPatterns.name, () => {
  const a = definition('a', '^gpt-4o$');
  const b = definition('b', '^claude-.*$');

  it.each([
    ['a creation', [a], [a, b], ['^claude-.*$']],
    ['a deletion', [a, b], [a], ['^claude-.*$']],
    ['a change of prices', [a, b], [a, { ...b, prices: { input: 2e-6 } }], ['^claude-.*$']],
    ['a change of pattern: the old one and the new one', [a, b], [a, { ...b, matchPattern: '^claude-3$' }], ['^claude-.*$', '^claude-3$']],
    ['no change', [a, b], [b, a], []],
  ])('names the patterns of %s', (_, before, after, patterns) => {
    expect(changedPatterns(before, after)).toEqual(patterns);
  });
});

describe(modelsMatching.name, () => {
  const models = ['GPT-4o', 'gpt-4o-mini', 'claude-3', 'mistral-large'];

  it('keeps the models a pattern matches, case-insensitively and anchored as pricing matches them', () => {
    expect(modelsMatching(models, ['^gpt-4o$', '^claude-.*$'])).toEqual(['GPT-4o', 'claude-3']);
    expect(modelsMatching(models, [])).toEqual([]);
  });

  it('keeps every model when the patterns are not known', () => {
    expect(modelsMatching(models, null)).toEqual(models);
  });
});
