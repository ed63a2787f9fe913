/**
 * Postgres `text` and `jsonb` reject U+0000 and unpaired UTF-16 surrogates, both of which
 * JavaScript strings may hold. NUL is dropped; a lone surrogate becomes U+FFFD.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The same test without the `g` flag, whose `lastIndex` would carry over between calls. */
const UNSAFE_ANYWHERE = new RegExp(UNSAFE.source);

/** Whether Postgres can store `value` as it is: where a client's text must be refused rather than changed. */
export const isStorableText = (value: string): boolean => !UNSAFE_ANYWHERE.test(value);

/** The rule `isStorableText` checks, for messages that name the field: `name ${UNSTORABLE_TEXT}`. */
export const UNSTORABLE_TEXT = 'must not contain NUL characters or unpaired UTF-16 surrogates';

export function sanitizeText(value: string): string {
  return UNSAFE.test(value) ? value.replace(UNSAFE, (m) => (m === '\u0000' ? '' : '\ufffd')) : value;
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
