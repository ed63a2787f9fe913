/**
 * Nesting depth of a JSON text, found by one pass over the bytes without parsing, so a
 * 10,000-level document is refused before `JSON.parse` and recursive code ever see it.
 * Returns as soon as `limit` is exceeded.
 */
export function jsonDepthExceeds(bytes: Uint8Array, limit: number): boolean {
  // Most of an export's bytes are string contents: Buffer's native search jumps over them.
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let depth = 0;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    if (b === 0x22) {
      i = closingQuote(buf, i);
      if (i < 0) return false;
    } else if (b === 0x7b || b === 0x5b) {
      if (++depth > limit) return true;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return false;
}

/** Index of the quote that ends the string opened at `open`, or -1 when it never ends. */
function closingQuote(buf: Buffer, open: number): number {
  for (let from = open + 1; ;) {
    const quote = buf.indexOf(0x22, from);
    if (quote < 0) return -1;
    // A backslash escapes the byte after it, so the quote is escaped exactly when an odd
    // run of backslashes precedes it. The run cannot reach back past `from`: the byte
    // before `from` is a quote.
    let run = 0;
    while (quote - run - 1 >= from && buf[quote - run - 1] === 0x5c) run++;
    if (run % 2 === 0) return quote;
    from = quote + 1;
  }
}
