/**
 * Tool arguments and results as readable text: JSON text (how most libraries send arguments)
 * or a value, pretty-printed; any other text as it is. Never throws: a value too deep to
 * print is shown as the text it came as.
 */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    const first = value.trimStart()[0];
    if (first !== '{' && first !== '[') return value;
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return Array.isArray(value) ? '[…]' : typeof value === 'object' && value !== null ? '{…}' : String(value);
  }
}
