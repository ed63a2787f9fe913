import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { GroupFilters, groupFiltersFrom } from '../lib/group-filters';
import { ScoreBadges, SessionLink, UserLink } from '../lib/group-links';
import { formatDuration } from '../lib/duration';
import { formatCost, formatCount, formatScore, formatTime } from '../lib/format';
import { useCurrentProject } from '../lib/projects';
import { errorMessage, rpc } from '../rpc';

const FIELDS = [
  ['id', 'Session id contains'],
  ['userId', 'User'],
  ['environment', 'Environment'],
] as const;

/** A project's sessions, the most recently active first, a page at a time. */
export function SessionsPage() {
  const { projectId, project } = useCurrentProject();
  const [params] = useSearchParams();
  const filters = useMemo(() => groupFiltersFrom(params, ['id', 'userId', 'environment']), [params]);
  const list = useInfiniteQuery({
    queryKey: ['sessions', projectId, filters],
    queryFn: ({ pageParam }) => rpc.traceSession.list.query({ projectId, ...filters, cursor: pageParam } as { projectId: string }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.nextCursor ?? undefined,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <section aria-labelledby="sessions-title">
      <div className="page-head">
        <h1 id="sessions-title">Sessions{project ? ` · ${project.name}` : ''}</h1>
      </div>
      <GroupFilters label="Session filters" fields={FIELDS} />
      {list.error && <p role="alert">{errorMessage(list.error)}</p>}
      {list.isLoading && <p role="status">Loading sessions…</p>}
      {!list.isLoading && rows.length === 0 && <p>No sessions match. A trace joins a session by its sessionId (OTLP: session.id).</p>}
      {rows.length > 0 && (
        <table className="plain" aria-label="Sessions">
          <thead>
            <tr>
              <th>Session</th>
              <th>Last trace</th>
              <th>First trace</th>
              <th>Traces</th>
              <th>Duration</th>
              <th>Tokens</th>
              <th>Cost</th>
              <th>Users</th>
              <th>Scores</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={s.id} data-session-id={s.id}>
                <td className="strong">
                  <SessionLink projectId={projectId} id={s.id} />
                </td>
                <td>{formatTime(s.lastTraceAt)}</td>
                <td>{formatTime(s.firstTraceAt)}</td>
                <td className="num">{formatCount(s.traceCount)}</td>
                <td className="num">{formatDuration(s.durationMs)}</td>
                <td className="num">{formatCount(s.totalTokens)}</td>
                <td className="num">{formatCost(s.totalCost)}</td>
                <td>
                  {s.userIds.map((u) => (
                    <span key={u} className="group-user">
                      <UserLink projectId={projectId} id={u} />
                    </span>
                  ))}
                </td>
                <td>
                  <ScoreBadges scores={s.scores} format={formatScore} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading…' : 'More sessions'}
        </button>
      )}
    </section>
  );
}
