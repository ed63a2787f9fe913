/** The server's validation messages by form field. Pure. */

/** Objects whose members a form asks for as fields of their own (`filter.sampleRate`, `judge.model`). */
const GROUPS = new Set(['filter', 'judge']);

/**
 * Splits the server's message (`timeoutMs: must be …; filter.sampleRate: …`, or a monitor's
 * `input.filter.model: …`; a deeper path such as `headers.X-Org` or `judge.categories[1]` by
 * the field it belongs to) into one message per form field, so each shows beside its input;
 * what names no field stays general.
 */
export function fieldErrors(message: string): { byField: Record<string, string>; general: string[] } {
  const byField: Record<string, string> = {};
  const general: string[] = [];
  for (const part of message.split(/;\s*/).filter(Boolean)) {
    const match = /^(?:input\.)?([a-zA-Z]+)(?:\.([a-zA-Z]+))?[^:\s]*:\s*(.*)$/.exec(part);
    const field = match ? (GROUPS.has(match[1]) && match[2] ? match[2] : match[1]) : undefined;
    if (field && match) byField[field] = byField[field] ? `${byField[field]}; ${part}` : part;
    else general.push(part);
  }
  return { byField, general };
}

/**
 * The server's message (or none) by the fields of one form: a server name the form asks for
 * under another (`windowSeconds` typed as `windowMinutes`) goes to that field through `rename`,
 * and a message about a field the form does not have stays general.
 */
export function formErrors<Field extends string>(
  message: string | null,
  fields: readonly Field[],
  rename: Partial<Record<string, Field>> = {},
): { by: Partial<Record<Field, string>>; general: string[] } {
  if (!message) return { by: {}, general: [] };
  const { byField, general } = fieldErrors(message);
  const by: Partial<Record<Field, string>> = {};
  for (const [field, text] of Object.entries(byField)) {
    const own = rename[field] ?? field;
    if ((fields as readonly string[]).includes(own)) by[own as Field] = text;
    else general.push(text);
  }
  return { by, general };
}
