import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { comparableRows, otlpExports, storedFormOf } from './otlp-rows.inputs';

/**
 * The processor's decoding is tuned for CPU (docs/BENCHMARKS.md, issue 25) and must not change
 * what it stores: every OTLP export the tests hold gives the folded facts written down in the
 * golden file, byte for byte, and the same values in every column of every row (the rows
 * parameter's encoding is free to change). The file was written by the conversion as it
 * stood before that tuning. A change meant to alter rows (a new column, a new mapping) writes it
 * again, `OTLP_ROWS_GOLDEN=write npx jest <this file> --selectProjects unit`, and the difference
 * shows in review.
 */
const GOLDEN = resolve(__dirname, 'testing/otlp-rows.golden.json');
const exports = otlpExports();

if (process.env.OTLP_ROWS_GOLDEN === 'write') {
  it('writes the golden file', async () => {
    const stored: Record<string, unknown> = {};
    for (const [name, body] of Object.entries(exports)) stored[name] = await storedFormOf(body);
    writeFileSync(GOLDEN, `${JSON.stringify(stored, null, 1)}\n`);
  });
} else {
  const golden: Record<string, Awaited<ReturnType<typeof storedFormOf>>> = JSON.parse(readFileSync(GOLDEN, 'utf8'));

  describe('OTLP exports as stored', () => {
    it('covers the exports the golden file was written from', () => {
      expect(Object.keys(exports)).toEqual(Object.keys(golden));
    });

    it.each(Object.keys(golden))('%s: the same facts, byte for byte, and the same rows', async (name) => {
      const stored = await storedFormOf(exports[name]);
      expect(stored.facts).toEqual(golden[name].facts);
      expect(comparableRows(stored.rows)).toEqual(comparableRows(golden[name].rows));
    });
  });
}
