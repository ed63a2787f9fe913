import type { FieldColumn } from './columns';

/** A column outside the merged fields, with how a conflicting row combines it. */
export interface FixedColumn {
  column: string;
  type: string;
  /** 'key' columns form the primary key; 'first' keeps the first non-null; 'min' keeps the earliest. */
  merge: 'key' | 'first' | 'min';
}

const quote = (column: string) => `"${column}"`;

/**
 * The projection's upsert for one table: rows arrive as one jsonb array (one parameter,
 * any number of rows), and on conflict every merged field takes the incoming value only
 * if its version is newer — the SQL twin of `mergeVersioned` in libs/domain. The caller
 * leaves out the rows of deleted traces (`withoutDeletedTraces`).
 */
export function buildUpsertSql<F>(table: string, fixed: FixedColumn[], fields: FieldColumn<F>[]): string {
  const all = [...fixed.map((c) => ({ column: c.column, type: c.type })), ...fields.map((f) => ({ column: f.column, type: f.type })), { column: 'versions', type: 'jsonb' }];
  const keys = fixed.filter((c) => c.merge === 'key').map((c) => quote(c.column));
  const updates = [
    ...fixed
      .filter((c) => c.merge !== 'key')
      .map((c) =>
        c.merge === 'first'
          ? `${quote(c.column)} = coalesce(t.${quote(c.column)}, excluded.${quote(c.column)})`
          : `${quote(c.column)} = least(t.${quote(c.column)}, excluded.${quote(c.column)})`,
      ),
    ...fields.map(
      (f) =>
        `${quote(f.column)} = CASE WHEN spanlog_newer(excluded.versions, t.versions, '${f.field}') THEN excluded.${quote(f.column)} ELSE t.${quote(f.column)} END`,
    ),
    'versions = spanlog_merge_versions(t.versions, excluded.versions)',
  ];
  return `INSERT INTO ${table} AS t (${all.map((c) => quote(c.column)).join(', ')})
SELECT ${all.map((c) => `r.${quote(c.column)}`).join(', ')}
  FROM jsonb_to_recordset($1::jsonb) AS r (${all.map((c) => `${quote(c.column)} ${c.type}`).join(', ')})
 ORDER BY ${keys.map((k) => `r.${k}`).join(', ')}
ON CONFLICT (${keys.join(', ')}) DO UPDATE SET
  ${updates.join(',\n  ')}`;
}
