/**
 * Text cut to terminal columns. Whatever the API returns (names, inputs, outputs) may hold
 * newlines, tabs or escape sequences; shown raw they would break the layout or drive the
 * terminal, so every cell goes through `oneLine` and `fit`.
 */

// C0 and C1 controls (ESC among them) and the line and paragraph separators.
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** A value's text on one line: runs of whitespace and control characters become one space. */
export const oneLine = (text: string): string => text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();

/** Columns a code point takes: 2 for East Asian wide and fullwidth ones and emoji, 0 for combining marks. */
export function codePointWidth(codePoint: number): number {
  if ((codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f) || codePoint === 0xfe0f) return 0;
  const wide =
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf && codePoint !== 0x303f) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd);
  return wide ? 2 : 1;
}

export const displayWidth = (text: string): number => {
  let width = 0;
  for (const ch of text) width += codePointWidth(ch.codePointAt(0) as number);
  return width;
};

/** At most `width` columns, ending in "…" when something was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = codePointWidth(ch.codePointAt(0) as number);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** Control characters shown as spaces, so no value can move the cursor or restyle the terminal. */
export const printable = (text: string): string => text.replace(CONTROL, ' ');

/** Exactly `width` columns: cut, then padded on the right (or the left, for numbers). */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const cut = truncate(printable(text), width);
  const pad = ' '.repeat(Math.max(0, width - displayWidth(cut)));
  return align === 'left' ? cut + pad : pad + cut;
}

/** A JSON value as the lines a panel shows: strings as they are, anything else pretty-printed. */
export function valueLines(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return text.split(/\r?\n/).map((line) => line.replace(/\t/g, '  ').replace(CONTROL, ' '));
}

/** A JSON value on one line, for a preview column. */
export const valuePreview = (value: unknown): string =>
  value === null || value === undefined ? '' : oneLine(typeof value === 'string' ? value : JSON.stringify(value));
