/** The live trace list: pages loaded so far, refreshed from the top as traces arrive. */

export interface Listed {
  id: string;
  timestamp: string | null;
}

export interface LiveList<T extends Listed> {
  rows: T[];
  /** Where the next older page starts; null when the oldest trace is loaded. */
  nextCursor: string | null;
}

export const EMPTY_LIVE: LiveList<never> = { rows: [], nextCursor: null };

/** The list's order (as the API's): newest timestamp first, then the greater id. */
export function compareListed(a: Listed, b: Listed): number {
  const byTime = Date.parse(b.timestamp ?? '') - Date.parse(a.timestamp ?? '');
  if (byTime) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * A fresh first page over what is shown. Rows older than the page's last one stay (the user
 * may have paged down to them) and so does the cursor past them; the page wins for everything
 * it covers, so a trace whose fields changed shows its new ones. When the page is the whole
 * list, rows missing from it are gone from the server (deleted) and leave.
 */
export function refreshTop<T extends Listed>(current: LiveList<T>, page: LiveList<T>): LiveList<T> {
  if (page.nextCursor === null || page.rows.length === 0) return { rows: page.rows, nextCursor: page.nextCursor };
  const last = page.rows[page.rows.length - 1];
  const inPage = new Set(page.rows.map((r) => r.id));
  const older = current.rows.filter((r) => !inPage.has(r.id) && compareListed(last, r) < 0);
  return older.length
    ? { rows: [...page.rows, ...older], nextCursor: current.nextCursor }
    : { rows: page.rows, nextCursor: page.nextCursor };
}

/** An older page appended below. */
export function appendPage<T extends Listed>(current: LiveList<T>, page: LiveList<T>): LiveList<T> {
  const shown = new Set(current.rows.map((r) => r.id));
  return { rows: [...current.rows, ...page.rows.filter((r) => !shown.has(r.id))], nextCursor: page.nextCursor };
}
