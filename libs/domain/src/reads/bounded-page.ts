/** A candidate row of a page: its position and what its fields weigh as shown. */
export interface SizedRow {
  bytes: number;
}

export interface PageBounds {
  /** Rows per page at most. */
  limit: number;
  /** The page ends before the row that would take it past this; its first row is always shown. */
  budgetBytes: number;
}

export interface BoundedPage<T> {
  rows: T[];
  /** Whether rows follow the page: some of the candidates were left out. */
  hasMore: boolean;
}

/**
 * The page of `candidates` (in page order, at most `limit + 1` of them, so that one beyond the
 * page tells whether more follow) within `bounds`. Always at least one row when there is one,
 * or a row larger than the budget could never be read.
 */
export function boundedPage<T extends SizedRow>(candidates: readonly T[], { limit, budgetBytes }: PageBounds): BoundedPage<T> {
  const rows: T[] = [];
  let bytes = 0;
  for (const row of candidates) {
    if (rows.length >= limit || (rows.length > 0 && bytes + row.bytes > budgetBytes)) break;
    rows.push(row);
    bytes += row.bytes;
  }
  return { rows, hasMore: rows.length < candidates.length };
}
