/**
 * Nesting depth of a JSON text, found by one pass over the bytes without parsing, so a
 * 10,000-level document is refused before `JSON.parse` and recursive code ever see it.
 * Returns as soon as `limit` is exceeded.
 */
export function jsonDepthExceeds(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c) i++; // backslash: skip the escaped character
      else if (b === 0x22) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++depth > limit) return true;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return false;
}
