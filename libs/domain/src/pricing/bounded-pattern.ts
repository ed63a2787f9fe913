import { UNSTORABLE_TEXT, isStorableText } from '../json/sanitize';

/**
 * Model-name patterns are regular expressions matched against every priced span's model, so a
 * pattern that could take long (catastrophic backtracking) is refused before it is compiled:
 * it must be anchored (`^…$`), at most MAX_PATTERN_LENGTH characters, without backreferences or
 * lookarounds, and without a repeated group that itself holds an unbounded quantifier or an
 * alternation (`(a+)+`, `(x+){2,}`, `(a|ab)*`): the two shapes whose backtracking grows
 * exponentially with the name. Model names are at most 256 characters (the label bound), which
 * bounds what is left.
 */
export const MAX_PATTERN_LENGTH = 200;

/** Whether the quantifier starting at `pattern[i]` lets what precedes it repeat more than once, and where it ends. */
function quantifierAt(pattern: string, i: number): { repeats: boolean; unbounded: boolean; end: number } | undefined {
  const c = pattern[i];
  const lazy = (end: number) => (pattern[end] === '?' || pattern[end] === '+' ? end + 1 : end);
  if (c === '*' || c === '+') return { repeats: true, unbounded: true, end: lazy(i + 1) };
  if (c === '?') return { repeats: false, unbounded: false, end: lazy(i + 1) };
  if (c !== '{') return undefined;
  const braces = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
  if (!braces) return undefined;
  const max = braces[2] === undefined ? Number(braces[1]) : braces[3] === '' ? Infinity : Number(braces[3]);
  return { repeats: max > 1, unbounded: max === Infinity, end: lazy(i + braces[0].length) };
}

/**
 * What is wrong with a pattern, or null when it may be compiled and matched safely. A pattern
 * on usage type names (a price tier's condition) need not be anchored: the names are at most
 * 64 characters.
 */
export function patternProblem(pattern: string, { anchored = true } = {}): string | null {
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH)
    return `must be a regular expression of 1 to ${MAX_PATTERN_LENGTH} characters`;
  // A project's pattern is stored as text.
  if (!isStorableText(pattern)) return UNSTORABLE_TEXT;
  if (anchored && (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')))
    return 'must be anchored: start with ^ and end with $';
  try {
    new RegExp(pattern, 'i');
  } catch {
    return 'must be a valid regular expression';
  }
  // One entry per open group: whether it holds an unbounded quantifier or an alternation.
  const groups: boolean[] = [false];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (/[1-9k]/.test(pattern[i + 1] ?? '')) return 'must not use backreferences';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') {
      if (pattern[i + 1] === '?' && pattern[i + 2] !== ':') return 'must not use lookarounds or named groups';
      groups.push(false);
    } else if (c === '|') {
      groups[groups.length - 1] = true;
    } else if (c === ')') {
      const risky = groups.pop() ?? false;
      const quantifier = quantifierAt(pattern, i + 1);
      if (quantifier?.repeats && risky)
        return 'must not repeat a group that holds an unbounded quantifier or an alternation (it could take long to match)';
      if (risky || quantifier?.unbounded) groups[groups.length - 1] = true;
      if (quantifier) i = quantifier.end - 1;
    } else {
      const quantifier = quantifierAt(pattern, i);
      if (quantifier?.unbounded) groups[groups.length - 1] = true;
      if (quantifier) i = quantifier.end - 1;
    }
  }
  return null;
}
