/** Extra HTTP headers as the dashboard's forms take them: one `Name: value` a line. Pure. */

/** The lines as headers; a line without a colon is sent as a name with an empty value, for the server to name. */
export function headersFromLines(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map((line) => {
        const at = line.indexOf(':');
        return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      }),
  );
}
