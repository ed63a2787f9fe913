import { DATASET_LIMITS, PAYLOAD_LIMITS } from '../limits';
import { CsvSyntaxError, parseCsv } from './csv';

export type ImportFormat = 'jsonl' | 'csv';

export interface ImportLineError {
  line: number;
  message: string;
}

/** One line's item as the file states it, unchecked: the API checks it (`dataset.checkItems`) before any is stored. */
export interface ImportLine {
  line: number;
  item: Record<string, unknown>;
}

/** A file read whole: its items by line, or every line that could not be read. */
export interface DatasetImport {
  lines: ImportLine[];
  errors: ImportLineError[];
}

/** The columns a CSV import reads; any other is refused by name, so a misspelt one is not silently lost. */
export const CSV_IMPORT_COLUMNS = ['input', 'expectedOutput', 'metadata'] as const;

/** A cell that looks like JSON (an object or an array) is read as JSON; any other is text. */
const JSON_LOOKING = /^\s*[[{]/;

function fromJsonl(text: string, out: DatasetImport): void {
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      const item: unknown = JSON.parse(raw);
      if (item === null || typeof item !== 'object' || Array.isArray(item))
        out.errors.push({ line: i + 1, message: 'must be an object such as {"input": …, "expectedOutput": …}' });
      else out.lines.push({ line: i + 1, item: item as Record<string, unknown> });
    } catch (err) {
      out.errors.push({ line: i + 1, message: `not JSON: ${(err as Error).message}` });
    }
  });
}

function fromCsv(text: string, out: DatasetImport): void {
  let rows;
  try {
    rows = parseCsv(text);
  } catch (err) {
    if (!(err instanceof CsvSyntaxError)) throw err;
    out.errors.push({ line: err.line, message: err.message.replace(/^line \d+: /, '') });
    return;
  }
  const [header, ...body] = rows;
  if (!header) return;
  const unknown = header.fields.filter((c) => !(CSV_IMPORT_COLUMNS as readonly string[]).includes(c));
  if (unknown.length || !header.fields.includes('input')) {
    out.errors.push({
      line: header.line,
      message: `the header names the columns ${CSV_IMPORT_COLUMNS.join(', ')} (input at least); unknown: ${unknown.join(', ') || 'none'}`,
    });
    return;
  }
  for (const row of body) {
    if (row.fields.length !== header.fields.length) {
      out.errors.push({ line: row.line, message: `has ${row.fields.length} fields; the header has ${header.fields.length}` });
      continue;
    }
    const item: Record<string, unknown> = {};
    const bad = header.fields.find((column, i) => {
      const cell = row.fields[i];
      if (cell === '') return false;
      if (!JSON_LOOKING.test(cell)) {
        item[column] = cell;
        return false;
      }
      try {
        item[column] = JSON.parse(cell);
        return false;
      } catch (err) {
        out.errors.push({ line: row.line, message: `${column}: looks like JSON but is not: ${(err as Error).message}` });
        return true;
      }
    });
    if (bad === undefined) out.lines.push({ line: row.line, item });
  }
}

/**
 * Reads a JSONL (one item object a line) or CSV file (columns CSV_IMPORT_COLUMNS, empty
 * cells left out) whole. Pure and browser-safe: the dashboard reads the file, the API checks
 * the items, and nothing is sent to be stored unless no line is at fault.
 */
export function readDatasetImport(text: string, format: ImportFormat): DatasetImport {
  const out: DatasetImport = { lines: [], errors: [] };
  if (format === 'csv') fromCsv(text, out);
  else fromJsonl(text, out);
  return out;
}

/**
 * Items in requests the API takes, in order: at most DATASET_LIMITS.itemsPerRequest each, and
 * each request's items within `maxBytes` as JSON (PAYLOAD_LIMITS.datasetItems less room for the
 * rest of the body); an item over it alone goes alone, and the API names it. The CLI's push and
 * the dashboard's import send their items so.
 */
export function itemRequests<T>(items: T[], maxBytes: number = PAYLOAD_LIMITS.datasetItems - 4096): T[][] {
  const encoder = new TextEncoder();
  const requests: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = encoder.encode(JSON.stringify(item)).length + 1;
    if (current.length && (current.length >= DATASET_LIMITS.itemsPerRequest || bytes + size > maxBytes)) {
      requests.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length) requests.push(current);
  return requests;
}
