/** One column of a keyset order: its SQL, and the Postgres type a cursor's value for it is cast to. */
export interface KeyColumn {
  sql: string;
  type: string;
}

/**
 * The order of a keyset-paged query: its columns, most significant first, unique together.
 * `nullsLast`: the first column may be null, sorted after every value (ascending orders only).
 */
export interface KeysetOrder {
  columns: readonly KeyColumn[];
  descending?: boolean;
  nullsLast?: boolean;
}

/** What a keyset page adds to its query: the condition of the rows after the cursor's position ('true' without one), the ORDER BY list and the LIMIT. */
export interface KeysetSql {
  after: string;
  orderBy: string;
  limit: string;
}

/**
 * The SQL of one page of `order`: the rows past `after` (a cursor's position, one value per
 * column), at most `limit` of them; the values are pushed onto `params`. The condition is a
 * row comparison, which the index on the order's columns serves.
 */
export function keyset(order: KeysetOrder, after: readonly unknown[] | null | undefined, limit: number, params: unknown[]): KeysetSql {
  const { columns, descending = false, nullsLast = false } = order;
  const direction = descending ? ' DESC' : '';
  const orderBy = columns.map((c, i) => `${c.sql}${direction}${i === 0 && nullsLast ? ' NULLS LAST' : ''}`).join(', ');
  return { after: after ? afterCondition(order, after, params) : 'true', orderBy, limit: `LIMIT $${params.push(limit)}` };
}

function afterCondition(
  { columns, descending = false, nullsLast = false }: KeysetOrder,
  after: readonly unknown[],
  params: unknown[],
): string {
  const past = (cols: readonly KeyColumn[], values: readonly unknown[]) =>
    `(${cols.map((c) => c.sql).join(', ')}) ${descending ? '<' : '>'} (${values.map((v, i) => `$${params.push(v)}::${cols[i].type}`).join(', ')})`;
  if (!nullsLast) return past(columns, after);
  const [first, ...rest] = columns;
  // Past a null: the other nulls after it. Past a value: the greater values, then every null.
  if (after[0] === null) return `(${first.sql} IS NULL AND ${past(rest, after.slice(1))})`;
  return `(${past(columns, after)} OR ${first.sql} IS NULL)`;
}
