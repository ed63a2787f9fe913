import { type ReactNode, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorAlert } from '../components/ErrorAlert';
import { FilterForm, FilterPicker, FilterText, FilterTimeRange } from '../components/filters/FilterForm';
import { type GroupFilters, type SessionRow, type UserRow, useSessionList, useUserList } from '../data/groups';
import { useCurrentProject } from '../data/projects';
import { formatDuration } from '../lib/duration';
import { formatCost, formatCount, formatScore, formatTime } from '../lib/format';
import { type ScoreSummary, ScoreBadges, SessionLink, UserLink } from '../lib/group-links';
import { urlFilterReaders } from '../lib/url-filters';

interface Column<Row> {
  head: string;
  cell: (row: Row, projectId: string) => ReactNode;
  className?: string;
}

/** The part of a paged list query this page reads. */
interface ListQuery<Row> {
  data?: { pages: readonly { data: readonly Row[] }[] };
  error: unknown;
  isLoading: boolean;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/** What tells the sessions list from the users list: its words, filters, columns and query. */
export interface GroupKind<Row extends { id: string }> {
  /** The plural, lower case: the heading and the "More …" button. */
  name: 'sessions' | 'users';
  /** The singular: the filter form's name and each row's `data-<one>-id`. */
  one: 'session' | 'user';
  /** The API's filters besides the activity range, in the URL under the same names. */
  textFilters: readonly string[];
  filters: (projectId: string) => ReactNode;
  columns: readonly Column<Row>[];
  useList: (projectId: string, filters: GroupFilters) => ListQuery<Row>;
  empty: string;
}

type GroupTotals = { totalTokens: number | null; totalCost: number | null; scores: ScoreSummary[] };
/** The columns every group shows last: its tokens, cost and scores. */
const totals = <Row extends GroupTotals>(): Column<Row>[] => [
  { head: 'Tokens', cell: (r) => formatCount(r.totalTokens), className: 'num' },
  { head: 'Cost', cell: (r) => formatCost(r.totalCost), className: 'num' },
  { head: 'Scores', cell: (r) => <ScoreBadges scores={r.scores} format={formatScore} /> },
];

export const SESSIONS: GroupKind<SessionRow> = {
  name: 'sessions',
  one: 'session',
  textFilters: ['id', 'userId', 'environment'],
  filters: (projectId) => (
    <>
      <FilterText name="id" label="Session id contains" />
      <FilterPicker projectId={projectId} field="userId" label="User" />
      <FilterPicker projectId={projectId} field="environment" label="Environment" />
    </>
  ),
  columns: [
    { head: 'Session', cell: (s, projectId) => <SessionLink projectId={projectId} id={s.id} />, className: 'strong' },
    { head: 'Last trace', cell: (s) => formatTime(s.lastTraceAt) },
    { head: 'First trace', cell: (s) => formatTime(s.firstTraceAt) },
    { head: 'Traces', cell: (s) => formatCount(s.traceCount), className: 'num' },
    { head: 'Duration', cell: (s) => formatDuration(s.durationMs), className: 'num' },
    {
      head: 'Users',
      cell: (s, projectId) =>
        s.userIds.map((u) => (
          <span key={u} className="group-user">
            <UserLink projectId={projectId} id={u} />
          </span>
        )),
    },
    ...totals<SessionRow>(),
  ],
  useList: useSessionList,
  empty: 'No sessions match. A trace joins a session by its sessionId (OTLP: session.id).',
};

export const USERS: GroupKind<UserRow> = {
  name: 'users',
  one: 'user',
  textFilters: ['id', 'environment'],
  filters: (projectId) => (
    <>
      <FilterText name="id" label="User id contains" />
      <FilterPicker projectId={projectId} field="environment" label="Environment" />
    </>
  ),
  columns: [
    { head: 'User', cell: (u, projectId) => <UserLink projectId={projectId} id={u.id} />, className: 'strong' },
    { head: 'Last seen', cell: (u) => formatTime(u.lastTraceAt) },
    { head: 'First seen', cell: (u) => formatTime(u.firstTraceAt) },
    { head: 'Traces', cell: (u) => formatCount(u.traceCount), className: 'num' },
    { head: 'Sessions', cell: (u) => formatCount(u.sessionCount), className: 'num' },
    ...totals<UserRow>(),
  ],
  useList: useUserList,
  empty: 'No users match. A trace names its user by its userId (OTLP: user.id).',
};

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** A project's sessions or users, the most recently active first, a page at a time, filtered from the URL. */
export function GroupsPage<Row extends { id: string }>({ kind }: { kind: GroupKind<Row> }) {
  const { projectId, project } = useCurrentProject();
  const [params] = useSearchParams();
  const filters = useMemo(() => {
    const { text, time } = urlFilterReaders(params);
    return { ...Object.fromEntries(kind.textFilters.map((k) => [k, text(k)])), fromTimestamp: time('from'), toTimestamp: time('to') };
  }, [params, kind]);
  const list = kind.useList(projectId, filters);
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const heading = capital(kind.name);
  return (
    <section aria-labelledby={`${kind.name}-title`}>
      <div className="page-head">
        <h1 id={`${kind.name}-title`}>
          {heading}
          {project ? ` · ${project.name}` : ''}
        </h1>
      </div>
      <FilterForm label={`${capital(kind.one)} filters`}>
        {kind.filters(projectId)}
        <FilterTimeRange fromLabel="Active from" toLabel="Active to" />
      </FilterForm>
      <ErrorAlert error={list.error} />
      {list.isLoading && <p role="status">Loading {kind.name}…</p>}
      {!list.isLoading && rows.length === 0 && <p>{kind.empty}</p>}
      {rows.length > 0 && (
        <table className="plain" aria-label={heading}>
          <thead>
            <tr>
              {kind.columns.map((c) => (
                <th key={c.head} className={c.className === 'num' ? 'num' : undefined}>
                  {c.head}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} {...{ [`data-${kind.one}-id`]: row.id }}>
                {kind.columns.map((c) => (
                  <td key={c.head} className={c.className}>
                    {c.cell(row, projectId)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading…' : `More ${kind.name}`}
        </button>
      )}
    </section>
  );
}
