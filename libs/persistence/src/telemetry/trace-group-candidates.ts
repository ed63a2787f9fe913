import type { DataSource } from 'typeorm';
import type { GroupFilter } from '@app/domain';
import { type KeysetOrder, keyset } from '../keyset';
import { GROUP_COLUMN, type GroupKind } from './trace-group-sql';

/**
 * How many of the newest traces each walk reads, per group the page asks for: a user's or
 * session's traces come a few at a time, so ten a group usually shows enough groups. A second
 * walk reads ten times more; past that a walk's reads (one heap row a trace) cost about what
 * grouping every trace does, so a page that needs more (a rare `idContains`, sessions `to` long
 * ago) is read from every trace.
 */
export const WALK_TRACES_PER_GROUP = [10, 100] as const;

/** The keys of a page's groups, or null when a walk of `traces` traces could not tell them. */
export type PageKeys = string[] | null;

/** The groups the walk met, by the time of their newest trace in it, then key, descending. */
const MET_ORDER: KeysetOrder = {
  columns: [
    { sql: 'met.last_ts', type: 'timestamptz' },
    { sql: 'met.key', type: 'text' },
  ],
  descending: true,
};

/**
 * The groups of a page from the project's newest traces alone (issue 33). The walk reads the
 * traces by time, newest first, from the cursor's time (and down to `from`), `traces` of them
 * and every one tied with the last. A group's first trace in the walk is its last trace up to
 * the cursor's time, so a group the walk did not meet was last active before the walk's oldest
 * time and comes after every group it met: when the met groups that pass the filters fill the
 * page, or the walk read every trace it could, the page's groups are theirs.
 *
 * Each met group is checked as groupPageFrom's HAVING checks a group, one group at a time on
 * the (project, group, time) index: after the cursor when it has no trace past the cursor's
 * time (then its newest trace in the walk is its last), in `to` when it has a trace by then,
 * in the environment when a trace of it is. `userId` is not read here (the list reads a user's
 * sessions from the user's traces).
 */
export async function pageKeysFromNewestTraces(
  db: DataSource,
  kind: GroupKind,
  projectId: string,
  f: GroupFilter,
  traces: number,
): Promise<PageKeys> {
  const col = GROUP_COLUMN[kind];
  const params: unknown[] = [projectId];
  const p = (value: unknown) => `$${params.push(value)}`;
  const traceOf = (condition: string) => `EXISTS (SELECT 1 FROM traces t WHERE t.project_id = $1 AND t.${col} = met.key AND ${condition})`;
  const bounds = ['w.project_id = $1'];
  const checks: string[] = [];
  if (f.after) {
    const cursorTime = p(f.after[0]);
    // A trace after the cursor's time is of a group active after it: never on this page.
    bounds.push(`w."timestamp" <= ${cursorTime}::timestamptz`);
    checks.push(`NOT ${traceOf(`t."timestamp" > ${cursorTime}::timestamptz`)}`);
  }
  if (f.from !== undefined) bounds.push(`w."timestamp" >= ${p(f.from)}::timestamptz`);
  if (f.to !== undefined) checks.push(traceOf(`t."timestamp" <= ${p(f.to)}::timestamptz`));
  if (f.environment !== undefined) checks.push(traceOf(`t.environment = ${p(f.environment)}`));
  if (f.idContains !== undefined) checks.push(`strpos(lower(met.key), lower(${p(f.idContains)})) > 0`);
  const page = keyset(MET_ORDER, f.after, f.limit, params);
  // Every trace counts, with a key or without, so a walk reads at most `traces` (and ties) whatever the data.
  const walk = `SELECT w.${col} AS key, w."timestamp" AS ts FROM traces w WHERE ${bounds.join(' AND ')}
                 ORDER BY w."timestamp" DESC FETCH FIRST (${p(traces)}::int) ROWS WITH TIES`;
  const [row] = (await db.query(
    `WITH walk AS MATERIALIZED (${walk}),
          met AS (SELECT walk.key, max(walk.ts) AS last_ts FROM walk WHERE walk.key IS NOT NULL GROUP BY walk.key)
     SELECT (SELECT count(*)::int FROM walk) AS walked,
            ARRAY(SELECT met.key FROM met WHERE ${[...checks, page.after].join(' AND ')} ORDER BY ${page.orderBy} ${page.limit}) AS keys`,
    params,
  )) as { walked: number; keys: string[] }[];
  return row.keys.length >= f.limit || row.walked < traces ? row.keys : null;
}
