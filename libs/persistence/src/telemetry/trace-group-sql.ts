import type { GroupFilter } from '@app/domain';
import { type KeysetOrder, keyset } from '../keyset';

/** What groups traces: a session (`session_id`) or a user (`user_id`). Never client text. */
export type GroupKind = 'session' | 'user';
export const GROUP_COLUMN: Record<GroupKind, string> = { session: 'session_id', user: 'user_id' };

/** Groups, the most recently active first: last trace time, then key, descending. */
const groupOrder = (col: string): KeysetOrder => ({
  columns: [
    { sql: 'max(t."timestamp")', type: 'timestamptz' },
    { sql: `t.${col}`, type: 'text' },
  ],
  descending: true,
});

/**
 * The one definition of a list page's groups: `FROM traces t … GROUP BY … HAVING … ORDER BY …
 * LIMIT`, for a SELECT of `t.<column>` and aggregates of `t` to go before it. `restrict` narrows
 * the traces to some groups' keys (SQL over `t`); any restriction that keeps the page's groups
 * gives the same page. `params` holds the project id as `$1`; the filter's values are pushed on.
 */
export function groupPageFrom(kind: GroupKind, f: GroupFilter, params: unknown[], restrict?: string): string {
  const col = GROUP_COLUMN[kind];
  const p = (value: unknown) => `$${params.push(value)}`;
  const where = ['t.project_id = $1', `t.${col} IS NOT NULL`];
  const having: string[] = [];
  if (restrict !== undefined) where.push(restrict);
  // strpos, not ILIKE: the client's text holds no pattern, so % and _ need no escaping.
  if (f.idContains !== undefined) where.push(`strpos(lower(t.${col}), lower(${p(f.idContains)})) > 0`);
  if (f.userId !== undefined) {
    const userId = p(f.userId);
    having.push(`bool_or(t.user_id = ${userId})`);
    // Only the user's sessions can have a trace of theirs: read on the user's index, not every session's traces.
    if (kind === 'session')
      where.push(
        `t.session_id = ANY(ARRAY(SELECT u.session_id FROM traces u WHERE u.project_id = $1 AND u.user_id = ${userId} AND u.session_id IS NOT NULL))`,
      );
  }
  if (f.environment !== undefined) having.push(`bool_or(t.environment = ${p(f.environment)})`);
  // A group is in a time range when it has activity in it: first trace before its end, last after its start.
  if (f.from !== undefined) having.push(`max(t."timestamp") >= ${p(f.from)}::timestamptz`);
  if (f.to !== undefined) having.push(`min(t."timestamp") <= ${p(f.to)}::timestamptz`);
  const page = keyset(groupOrder(col), f.after, f.limit, params);
  return `FROM traces t
          WHERE ${where.join(' AND ')}
          GROUP BY t.${col}
          HAVING ${[...having, page.after].join(' AND ')}
          ORDER BY ${page.orderBy}
          ${page.limit}`;
}
