import { useInfiniteQuery } from '@tanstack/react-query';
import { formatTime } from '../lib/format';
import type { Org } from '../lib/projects';
import { errorMessage, rpc } from '../rpc';

/** The organization's audit log (Growth, Team and Enterprise); on other plans the server says why not. */
export function AuditLog({ org }: { org: Org }) {
  const log = useInfiniteQuery({
    queryKey: ['audit', org.id],
    queryFn: ({ pageParam }) => rpc.auditLog.list.query({ orgId: org.id, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.nextCursor ?? undefined,
    retry: false,
  });
  if (log.error) return <p role="alert">{errorMessage(log.error)}</p>;
  const rows = log.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div>
      <table className="plain">
        <caption>Audit log of {org.name}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Action</th>
            <th scope="col">Actor</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <td>{formatTime(String(r.createdAt))}</td>
              <td>{r.action}</td>
              <td>{r.actorUserId ?? '–'}</td>
              <td>
                <code>{r.target ?? ''}</code>
              </td>
              <td>
                <code>{JSON.stringify(r.details)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {log.hasNextPage && (
        <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          Older entries
        </button>
      )}
    </div>
  );
}
