/** A field as an agent's trace tree shows it: whole, or its text cut to a stated size with the full size named. */
export interface AgentField {
  value: unknown;
  /** The field's full size in bytes of its JSON text (strings: UTF-8 bytes), present only when `value` is cut. */
  fullBytes?: number;
}

/**
 * `value` whole when its text (a string itself, anything else as JSON) has at most `maxChars`
 * characters; else that text's first `maxChars` characters, never splitting a surrogate pair,
 * and its full size, so an agent knows to ask for the field whole (`get_span`).
 */
export function cutForAgent(value: unknown, maxChars: number): AgentField {
  if (value === null || value === undefined) return { value: value ?? null };
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length <= maxChars) return { value };
  const end = /[\uD800-\uDBFF]/.test(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return { value: text.slice(0, end), fullBytes: Buffer.byteLength(text) };
}
