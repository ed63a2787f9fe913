import type { FieldRule } from '../validation';

/** GET /api/v1/traces/export's formats (docs/reading.md "Exports"). */
export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What an export may add to each trace. */
export const EXPORT_INCLUDES = ['spans', 'scores'] as const;
export type ExportInclude = (typeof EXPORT_INCLUDES)[number];

/** `include`: a comma-separated list of EXPORT_INCLUDES (`spans,scores`), read as the list. */
export const exportIncludes: FieldRule = {
  read: (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()) : v),
  test: (v) => Array.isArray(v) && v.every((s) => (EXPORT_INCLUDES as readonly string[]).includes(s as string)),
  message: `must be a comma-separated list of ${EXPORT_INCLUDES.join(', ')}`,
  schema: { type: 'string', pattern: `^(${EXPORT_INCLUDES.join('|')})(,(${EXPORT_INCLUDES.join('|')}))*$` },
};

/**
 * The CSV export's columns, fixed whatever is included: one row per trace, and with `include`
 * one row per span and per score after their trace's row, `record` telling them apart. A
 * column a record has no such field for is empty.
 */
export const EXPORT_CSV_COLUMNS = [
  'record',
  'id',
  'externalId',
  'traceId',
  'parentId',
  'spanId',
  'name',
  'type',
  'operation',
  'model',
  'timestamp',
  'endTime',
  'userId',
  'sessionId',
  'environment',
  'release',
  'version',
  'tags',
  'level',
  'statusMessage',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'cost',
  'latencyMs',
  'value',
  'dataType',
  'source',
  'comment',
  'input',
  'output',
  'metadata',
] as const;
export type ExportCsvColumn = (typeof EXPORT_CSV_COLUMNS)[number];

/** A cell: text as it is, a number or boolean as its text, anything else (objects, lists) as JSON; null and absent empty. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** One CSV row of `record`, its fields by column name, in EXPORT_CSV_COLUMNS' order. */
export function exportCsvRow(record: 'trace' | 'span' | 'score', fields: Partial<Record<ExportCsvColumn, unknown>>): string[] {
  return EXPORT_CSV_COLUMNS.map((column) => (column === 'record' ? record : cell(fields[column])));
}
