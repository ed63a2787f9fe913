import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes a bench's results as JSON to `file` (under bench/results) and prints them. */
export async function saveResults(file: string, results: object): Promise<void> {
  const json = `${JSON.stringify(results, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, json);
  process.stdout.write(json);
}

/** Runs a bench's `main`; a failure is printed under the bench's name and exits 1. */
export function runBench(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${name} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
