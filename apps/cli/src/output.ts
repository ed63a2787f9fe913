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

/** Writes to stdout and resolves once the stream takes more, so a slow reader slows the writer instead of filling memory. */
export async function writeOut(text: string): Promise<void> {
  if (process.stdout.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      process.stdout.off('drain', done);
      process.stdout.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    process.stdout.once('drain', done);
    process.stdout.once('error', done);
  });
}
