import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { GroupFilters, groupFiltersFrom } from '../lib/group-filters';
import { ScoreBadges, UserLink } from '../lib/group-links';
import { formatCost, formatCount, formatScore, formatTime } from '../lib/format';
import { useCurrentProject } from '../lib/projects';
import { errorMessage, rpc } from '../rpc';

const FIELDS = [
  ['id', 'User id contains'],
  ['environment', 'Environment'],
] as const;

/** A project's users (the userId its traces carry), the most recently seen first. */
export function UsersPage() {
  const { projectId, project } = useCurrentProject();
  const [params] = useSearchParams();
  const filters = useMemo(() => groupFiltersFrom(params, ['id', 'environment']), [params]);
  const list = useInfiniteQuery({
    queryKey: ['users', projectId, filters],
    queryFn: ({ pageParam }) => rpc.traceUser.list.query({ projectId, ...filters, cursor: pageParam } as { projectId: string }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.nextCursor ?? undefined,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <section aria-labelledby="users-title">
      <div className="page-head">
        <h1 id="users-title">Users{project ? ` · ${project.name}` : ''}</h1>
      </div>
      <GroupFilters label="User filters" fields={FIELDS} />
      {list.error && <p role="alert">{errorMessage(list.error)}</p>}
      {list.isLoading && <p role="status">Loading users…</p>}
      {!list.isLoading && rows.length === 0 && <p>No users match. A trace names its user by its userId (OTLP: user.id).</p>}
      {rows.length > 0 && (
        <table className="plain" aria-label="Users">
          <thead>
            <tr>
              <th>User</th>
              <th>Last seen</th>
              <th>First seen</th>
              <th>Traces</th>
              <th>Sessions</th>
              <th>Tokens</th>
              <th>Cost</th>
              <th>Scores</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((u) => (
              <tr key={u.id} data-user-id={u.id}>
                <td className="strong">
                  <UserLink projectId={projectId} id={u.id} />
                </td>
                <td>{formatTime(u.lastTraceAt)}</td>
                <td>{formatTime(u.firstTraceAt)}</td>
                <td className="num">{formatCount(u.traceCount)}</td>
                <td className="num">{formatCount(u.sessionCount)}</td>
                <td className="num">{formatCount(u.totalTokens)}</td>
                <td className="num">{formatCost(u.totalCost)}</td>
                <td>
                  <ScoreBadges scores={u.scores} format={formatScore} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading…' : 'More users'}
        </button>
      )}
    </section>
  );
}
