/**
 * The trace list's `/` filter: `name:VALUE`, `user:VALUE` and `tag:VALUE` (repeatable; every
 * tag must match), values quoted with "…" when they hold spaces (`\"` and `\\` inside).
 * Words without a known field name form the name, so `/checkout flow` filters by that name.
 */
export interface TraceFilter {
  name?: string;
  userId?: string;
  tags?: string[];
}

export type FilterParse = { ok: true; filter: TraceFilter } | { ok: false; error: string };

const FIELDS = { name: 'name', user: 'userId', tag: 'tags' } as const;
type FieldName = keyof typeof FIELDS;

interface Token {
  field: FieldName | null;
  value: string;
}

function tokenize(text: string): { ok: true; tokens: Token[] } | { ok: false; error: string } {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i])) {
      i++;
      continue;
    }
    const head = /^(name|user|tag):/.exec(text.slice(i));
    const field = head ? (head[1] as FieldName) : null;
    if (head) i += head[0].length;
    let value = '';
    if (text[i] === '"') {
      i++;
      let closed = false;
      while (i < text.length) {
        const ch = text[i];
        if (ch === '\\' && i + 1 < text.length) {
          value += text[i + 1];
          i += 2;
        } else if (ch === '"') {
          closed = true;
          i++;
          break;
        } else {
          value += ch;
          i++;
        }
      }
      if (!closed) return { ok: false, error: 'a quote is not closed' };
    } else {
      while (i < text.length && !/\s/.test(text[i])) value += text[i++];
    }
    if (field && value === '') return { ok: false, error: `${field}: needs a value` };
    tokens.push({ field, value });
  }
  return { ok: true, tokens };
}

export function parseTraceFilter(text: string): FilterParse {
  const tokenized = tokenize(text);
  if (!tokenized.ok) return tokenized;
  const filter: TraceFilter = {};
  const words: string[] = [];
  for (const { field, value } of tokenized.tokens) {
    switch (field) {
      case null:
        words.push(value);
        break;
      case 'name':
        if (filter.name !== undefined) return { ok: false, error: 'name: is given twice' };
        filter.name = value;
        break;
      case 'user':
        if (filter.userId !== undefined) return { ok: false, error: 'user: is given twice' };
        filter.userId = value;
        break;
      case 'tag':
        filter.tags = [...(filter.tags ?? []), value];
        break;
    }
  }
  if (words.length) {
    if (filter.name !== undefined) return { ok: false, error: 'give the name either as words or as name:, not both' };
    filter.name = words.join(' ');
  }
  return { ok: true, filter };
}

/** Bare when it can be, quoted when it holds spaces, quotes or backslashes. */
const quote = (value: string) => (/^[^\s"\\]+$/.test(value) ? value : `"${value.replace(/["\\]/g, (ch) => `\\${ch}`)}"`);

/** The filter as text that parses back to it. */
export function formatTraceFilter(filter: TraceFilter): string {
  return [
    ...(filter.name !== undefined ? [`name:${quote(filter.name)}`] : []),
    ...(filter.userId !== undefined ? [`user:${quote(filter.userId)}`] : []),
    ...(filter.tags ?? []).map((tag) => `tag:${quote(tag)}`),
  ].join(' ');
}

export const isEmptyFilter = (filter: TraceFilter): boolean =>
  filter.name === undefined && filter.userId === undefined && !filter.tags?.length;
