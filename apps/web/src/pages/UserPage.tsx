import { Link, useParams } from 'react-router';
import { ScoreBadges, SessionLink } from '../lib/group-links';
import { ErrorAlert } from '../components/ErrorAlert';
import { useTraceUser } from '../data/groups';
import { useCurrentProject } from '../data/projects';
import { useTraceList } from '../data/traces';
import { formatCost, formatCount, formatMs, formatScore, formatTime } from '../lib/format';
import { messagePreview } from '../lib/message-preview';
import { errorMessage } from '../rpc';

/** One user: their totals, and their traces (the trace list filtered by userId), newest first, each a link to its page. */
export function UserPage() {
  const { projectId } = useCurrentProject();
  const { userId = '' } = useParams();
  const user = useTraceUser(projectId, userId);
  const traces = useTraceList(projectId, { userId });
  const rows = traces.data?.pages.flatMap((p) => p.data) ?? [];
  if (user.isLoading) return <p role="status">Loading user…</p>;
  if (user.error || !user.data) return <p role="alert">{errorMessage(user.error)}</p>;
  const u = user.data;
  return (
    <article aria-labelledby="user-title" className="user-page">
      <p>
        <Link to={`/p/${projectId}/users`}>← All users</Link>
      </p>
      <h1 id="user-title">User {u.id}</h1>
      <dl className="facts" aria-label="User totals">
        <div>
          <dt>Traces</dt>
          <dd data-testid="user-traces">{formatCount(u.traceCount)}</dd>
        </div>
        <div>
          <dt>Sessions</dt>
          <dd>{formatCount(u.sessionCount)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd data-testid="user-tokens">{formatCount(u.totalTokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-testid="user-cost">{formatCost(u.totalCost)}</dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>{formatTime(u.lastTraceAt)}</dd>
        </div>
        <div>
          <dt>First seen</dt>
          <dd>{formatTime(u.firstTraceAt)}</dd>
        </div>
        <div>
          <dt>Scores</dt>
          <dd>
            <ScoreBadges scores={u.scores} format={formatScore} />
          </dd>
        </div>
      </dl>
      <h2>Traces</h2>
      <ErrorAlert error={traces.error} />
      <table className="plain" aria-label="Traces of the user">
        <thead>
          <tr>
            <th>Time</th>
            <th>Name</th>
            <th>Session</th>
            <th>Input</th>
            <th>Output</th>
            <th>Latency</th>
            <th>Tokens</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.id} data-trace-id={t.id}>
              <td>{formatTime(t.timestamp)}</td>
              <td className="strong">
                <Link to={`/p/${projectId}/traces/${encodeURIComponent(t.id)}`}>{t.name ?? 'Unnamed trace'}</Link>
              </td>
              <td>
                <SessionLink projectId={projectId} id={t.sessionId} />
              </td>
              <td className="preview">{messagePreview(t.input, 'input', 60)}</td>
              <td className="preview">{messagePreview(t.output, 'output', 60)}</td>
              <td className="num">{formatMs(t.latencyMs)}</td>
              <td className="num">{formatCount(t.totalTokens)}</td>
              <td className="num">{formatCost(t.totalCost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {traces.hasNextPage && (
        <button type="button" onClick={() => void traces.fetchNextPage()} disabled={traces.isFetchingNextPage}>
          {traces.isFetchingNextPage ? 'Loading…' : 'More traces'}
        </button>
      )}
    </article>
  );
}
