import type { FieldColumn } from './columns';

/** A column outside the merged fields, with how a conflicting row combines it. */
export interface FixedColumn {
  column: string;
  type: string;
  /**
   * 'key' columns form the primary key; 'first' keeps the first non-null; 'min' keeps the
   * earliest; 'cleared' is null in a row merged into (a storage detail of a field whose merge
   * writes its `whole` value).
   */
  merge: 'key' | 'first' | 'min' | 'cleared';
}

const quote = (column: string) => `"${column}"`;

const FIXED_MERGE: Record<Exclude<FixedColumn['merge'], 'key'>, (column: string) => string> = {
  first: (c) => `coalesce(t.${c}, excluded.${c})`,
  min: (c) => `least(t.${c}, excluded.${c})`,
  cleared: () => 'NULL',
};

/**
 * The projection's upsert for one table: rows arrive as one jsonb array (one parameter,
 * any number of rows), and on conflict every merged field takes the incoming value only
 * if its version is newer — the SQL twin of `mergeVersioned` in libs/domain; a field stored
 * in more than its column (`whole`) is merged as its whole value. The caller
 * leaves out the rows of deleted traces (`withoutDeletedTraces`).
 */
export function buildUpsertSql<F>(table: string, fixed: FixedColumn[], fields: FieldColumn<F>[]): string {
  const all = [
    ...fixed.map((c) => ({ column: c.column, type: c.type })),
    ...fields.map((f) => ({ column: f.column, type: f.type })),
    { column: 'versions', type: 'jsonb' },
  ];
  const keys = fixed.filter((c) => c.merge === 'key').map((c) => quote(c.column));
  const updates = [
    ...fixed
      .filter((c) => c.merge !== 'key')
      .map((c) => `${quote(c.column)} = ${FIXED_MERGE[c.merge as Exclude<FixedColumn['merge'], 'key'>](quote(c.column))}`),
    ...fields.map((f) => {
      const value = f.whole ?? ((row: string) => `${row}.${quote(f.column)}`);
      return `${quote(f.column)} = CASE WHEN spanlog_newer(excluded.versions, t.versions, '${f.field}') THEN ${value('excluded')} ELSE ${value('t')} END`;
    }),
    'versions = spanlog_merge_versions(t.versions, excluded.versions)',
  ];
  return `INSERT INTO ${table} AS t (${all.map((c) => quote(c.column)).join(', ')})
SELECT ${all.map((c) => `r.${quote(c.column)}`).join(', ')}
  FROM jsonb_to_recordset($1::jsonb) AS r (${all.map((c) => `${quote(c.column)} ${c.type}`).join(', ')})
 ORDER BY ${keys.map((k) => `r.${k}`).join(', ')}
ON CONFLICT (${keys.join(', ')}) DO UPDATE SET
  ${updates.join(',\n  ')}`;
}
