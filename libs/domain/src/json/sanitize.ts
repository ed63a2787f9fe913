/**
 * Postgres `text` and `jsonb` reject U+0000 and unpaired UTF-16 surrogates, both of which
 * JavaScript strings may hold. NUL is dropped; a lone surrogate becomes U+FFFD.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Whether Postgres can store `value` as it is: where a client's text must be refused rather
 * than changed. Native checks: on text with nothing to change, which nearly every value is,
 * a quarter of the time the `UNSAFE` pattern took (issue 25: every attribute of every span is
 * checked).
 */
export const isStorableText = (value: string): boolean => value.isWellFormed() && !value.includes('\u0000');

/** The rule `isStorableText` checks, for messages that name the field: `name ${UNSTORABLE_TEXT}`. */
export const UNSTORABLE_TEXT = 'must not contain NUL characters or unpaired UTF-16 surrogates';

export function sanitizeText(value: string): string {
  return isStorableText(value) ? value : value.replace(UNSAFE, (m) => (m === '\u0000' ? '' : '\ufffd'));
}

/** Sanitizes every string and object key in a parsed JSON value, iteratively (depth is bounded upstream). */
export function sanitizeJson<T>(value: T): T {
  return sanitizeValue(value) as T;
}

function sanitizeValue(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeText(value);
  if (Array.isArray(value)) return value.map(sanitizeValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[sanitizeText(k)] = sanitizeValue(v);
    return out;
  }
  return value;
}

/**
 * Where a parsed JSON value holds a string or key that Postgres cannot store (see above), as
 * a path from `path` (`config.a[2]`); null when there is none. For values that must be kept
 * exactly as sent, where sanitizing would change them behind the client's back.
 */
export function unstorableTextAt(value: unknown, path: string): string | null {
  if (typeof value === 'string') return isStorableText(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableTextAt(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key)) return `${path} (a key)`;
      const found = unstorableTextAt(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}
