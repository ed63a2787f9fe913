import type { FieldColumn } from './columns';

/** A column outside the merged fields, with how a conflicting row combines it and where a row's value comes from. */
export interface FixedColumn<D> {
  column: string;
  type: string;
  /**
   * 'key' columns form the primary key; 'first' keeps the first non-null; 'min' keeps the
   * earliest; 'cleared' is null in a row merged into (a storage detail of a field whose merge
   * writes its `whole` value).
   */
  merge: 'key' | 'first' | 'min' | 'cleared';
  of(row: D): unknown;
}

const quote = (column: string) => `"${column}"`;

const FIXED_MERGE: Record<Exclude<FixedColumn<unknown>['merge'], 'key'>, (column: string) => string> = {
  first: (c) => `coalesce(t.${c}, excluded.${c})`,
  min: (c) => `least(t.${c}, excluded.${c})`,
  cleared: () => 'NULL',
};

/** A table's columns in the order each row's JSON array holds them: the fixed ones, the merged fields, `versions`. */
export function rowColumns<F>(fixed: FixedColumn<never>[], fields: FieldColumn<F>[]): { column: string; type: string }[] {
  return [
    ...fixed.map((c) => ({ column: c.column, type: c.type })),
    ...fields.map((f) => ({ column: f.column, type: f.type })),
    { column: 'versions', type: 'jsonb' },
  ];
}

/**
 * Element `i` of row `r` (a JSON array) as a value of the column's type. JSON null (an unset
 * value) is SQL NULL for every type; `->>` gives it, and a jsonb or array value needs the check.
 */
function elementAs(type: string, i: number): string {
  if (type === 'jsonb') return `nullif(r -> ${i}, 'null')`;
  if (type === 'text[]')
    return `CASE WHEN jsonb_typeof(r -> ${i}) = 'array' THEN ARRAY(SELECT e FROM jsonb_array_elements_text(r -> ${i}) WITH ORDINALITY AS a (e, n) ORDER BY n) END`;
  return `(r ->> ${i})::${type}`;
}

/** Whether row `row` (`t` or `excluded`) holds field `f`: a NULL column is a field no event set, which has no version. */
const holds = <F>(row: string, f: FieldColumn<F>) => `${row}.${quote(f.column)} IS NOT NULL`;

/** `row`'s versions with each field it does not hold named with null, the form `spanlog_merge_versions` reads. */
export const withUnsetNamed = <F>(row: string, fields: readonly FieldColumn<F>[]) =>
  `spanlog_unset(${row}.versions, ARRAY[${fields.map((f) => `CASE WHEN ${holds(row, f)} THEN NULL ELSE '${f.field}' END`).join(', ')}])`;

/**
 * The projection's upsert for one table: rows arrive as one jsonb array of row arrays (one
 * parameter, any number of rows; each row's values in `rowColumns` order, without the keys an
 * object per row repeats: Postgres parses and reads the batch in a third of the time
 * `jsonb_to_recordset` over objects took), and on conflict every merged field takes the
 * incoming value only if its version is newer — the SQL twin of `mergeVersioned` in
 * libs/domain; a field stored in more than its column (`whole`) is merged as its whole value.
 * A field's version is read with whether its column holds a value (migration
 * UnsetFieldsUnnamed). The caller leaves out the rows of deleted traces (`withoutDeletedTraces`).
 */
export function buildUpsertSql<F>(table: string, fixed: FixedColumn<never>[], fields: FieldColumn<F>[]): string {
  const all = rowColumns(fixed, fields);
  const keys = fixed.filter((c) => c.merge === 'key').map((c) => quote(c.column));
  const updates = [
    ...fixed
      .filter((c) => c.merge !== 'key')
      .map((c) => `${quote(c.column)} = ${FIXED_MERGE[c.merge as Exclude<FixedColumn<never>['merge'], 'key'>](quote(c.column))}`),
    ...fields.map((f) => {
      const value = f.whole ?? ((row: string) => `${row}.${quote(f.column)}`);
      const newer = `spanlog_newer_of(excluded.versions, ${holds('excluded', f)}, t.versions, ${holds('t', f)}, '${f.field}')`;
      return `${quote(f.column)} = CASE WHEN ${newer} THEN ${value('excluded')} ELSE ${value('t')} END`;
    }),
    // A field neither side holds stays NULL, which says it has no version: no null entry, as the writer writes none.
    `versions = jsonb_strip_nulls(spanlog_merge_versions(${withUnsetNamed('t', fields)}, ${withUnsetNamed('excluded', fields)}))`,
  ];
  return `INSERT INTO ${table} AS t (${all.map((c) => quote(c.column)).join(', ')})
SELECT ${all.map((c) => `r.${quote(c.column)}`).join(', ')}
  FROM (SELECT ${all.map((c, i) => elementAs(c.type, i)).join(', ')} FROM jsonb_array_elements($1::jsonb) AS batch (r))
    AS r (${all.map((c) => quote(c.column)).join(', ')})
 ORDER BY ${keys.map((k) => `r.${k}`).join(', ')}
ON CONFLICT (${keys.join(', ')}) DO UPDATE SET
  ${updates.join(',\n  ')}`;
}
