import { BUILT_IN_PRICES } from './built-in-prices';
import { MAX_PATTERN_LENGTH, patternProblem } from './bounded-pattern';

describe(patternProblem.name, () => {
  it.each(BUILT_IN_PRICES.map((d) => [d.id, d.matchPattern]))('accepts the built-in pattern of %s', (_, pattern) => {
    expect(patternProblem(pattern)).toBeNull();
  });

  it.each([
    '^gpt-4o$',
    '^(openai/)?gpt-4o(-\\d{4}-\\d{2}-\\d{2})?$',
    '^claude-.*$',
    '^[a-z]+-\\d+$',
    '^(a|b)c$',
    '^(?:x\\d+)?$',
    '^a\\$b$',
  ])('accepts %s', (pattern) => {
    expect(patternProblem(pattern)).toBeNull();
  });

  it.each([
    ['', `must be a regular expression of 1 to ${MAX_PATTERN_LENGTH} characters`],
    [`^${'a'.repeat(MAX_PATTERN_LENGTH)}$`, `must be a regular expression of 1 to ${MAX_PATTERN_LENGTH} characters`],
    ['gpt-4o', 'must be anchored: start with ^ and end with $'],
    ['^gpt-4o', 'must be anchored: start with ^ and end with $'],
    ['^gpt\\$', 'must be anchored: start with ^ and end with $'],
    ['^(gpt$', 'must be a valid regular expression'],
    ['^(a+)+$', 'must not repeat a group that holds an unbounded quantifier or an alternation (it could take long to match)'],
    ['^(a*)*b$', 'must not repeat a group that holds an unbounded quantifier or an alternation (it could take long to match)'],
    ['^(x\\d+){2,}$', 'must not repeat a group that holds an unbounded quantifier or an alternation (it could take long to match)'],
    ['^((a+)b)+$', 'must not repeat a group that holds an unbounded quantifier or an alternation (it could take long to match)'],
    ['^(a|ab)*$', 'must not repeat a group that holds an unbounded quantifier or an alternation (it could take long to match)'],
    ['^(a)\\1$', 'must not use backreferences'],
    ['^(?=a)a$', 'must not use lookarounds or named groups'],
  ])('refuses %j: %s', (pattern, problem) => {
    expect(patternProblem(pattern)).toBe(problem);
  });
});
