/** With --json, stdout holds exactly one JSON document; everything else goes to stderr. */
export function printResult(result: unknown, json: boolean, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${human()}\n`);
}

/** One line on stderr, non-zero exit (CONTRACT "Command line"). */
export class CliError extends Error {}

export function fail(err: unknown): never {
  process.stderr.write(`spanlog: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

/** Rows as lines of columns; "(none)" for no rows, so a human sees the command worked. */
export const table = (rows: string[][]): string => (rows.length ? rows.map((r) => r.join('  ')).join('\n') : '(none)');

let stdoutWatched = false;

/**
 * Writes to stdout and resolves once the stream takes more, so a slow reader slows the writer
 * instead of filling memory. A reader that goes away (`| head`) ends the command with one line.
 */
export async function writeOut(text: string): Promise<void> {
  if (!stdoutWatched) {
    stdoutWatched = true;
    process.stdout.on('error', fail);
  }
  if (process.stdout.write(text)) return;
  await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}
