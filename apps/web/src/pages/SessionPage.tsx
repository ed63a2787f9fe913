import { Link, useParams } from 'react-router';
import { InputOutput } from '../components/conversation/InputOutput';
import { ScoreBadges, UserLink } from '../lib/group-links';
import { formatDuration } from '../lib/duration';
import { formatCost, formatCount, formatMs, formatScore, formatTime } from '../lib/format';
import { type SessionTrace, useTraceSession } from '../data/groups';
import { useCurrentProject } from '../data/projects';
import { errorMessage } from '../rpc';

/** One trace of the session: its name (a link to it), time and totals, then its input and output as turns. */
function Turn({ projectId, trace, index }: { projectId: string; trace: SessionTrace; index: number }) {
  return (
    <article className="session-turn" aria-labelledby={`turn-${trace.id}`} data-trace-id={trace.id}>
      <header className="session-turn-head">
        <h2 id={`turn-${trace.id}`}>
          <span className="muted">#{index + 1}</span>{' '}
          <Link to={`/p/${projectId}/traces/${encodeURIComponent(trace.id)}`}>{trace.name ?? 'Unnamed trace'}</Link>
        </h2>
        <span className="muted">
          {formatTime(trace.timestamp)} · {formatMs(trace.latencyMs)} · {formatCount(trace.totalTokens)} tokens ·{' '}
          {formatCost(trace.totalCost)}
        </span>
        {trace.userId && <UserLink projectId={projectId} id={trace.userId} />}
        <ScoreBadges scores={trace.scores} format={formatScore} />
      </header>
      <InputOutput input={trace.input} output={trace.output} scope={`Trace ${index + 1}`} />
    </article>
  );
}

/** A session read as one conversation: its traces in time order, each trace's input and output as turns, with the session's totals. */
export function SessionPage() {
  const { projectId } = useCurrentProject();
  const { sessionId = '' } = useParams();
  const pages = useTraceSession(projectId, sessionId);
  const first = pages.data?.pages[0];
  const traces = pages.data?.pages.flatMap((p) => p.traces) ?? [];
  if (pages.isLoading) return <p role="status">Loading session…</p>;
  if (pages.error || !first) return <p role="alert">{errorMessage(pages.error)}</p>;
  return (
    <article aria-labelledby="session-title" className="session">
      <p>
        <Link to={`/p/${projectId}/sessions`}>← All sessions</Link>
      </p>
      <h1 id="session-title">Session {first.id}</h1>
      <dl className="facts" aria-label="Session totals">
        <div>
          <dt>Traces</dt>
          <dd data-testid="session-traces">{formatCount(first.traceCount)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd data-testid="session-duration">{formatDuration(first.durationMs)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd data-testid="session-tokens">{formatCount(first.totalTokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-testid="session-cost">{formatCost(first.totalCost)}</dd>
        </div>
        <div>
          <dt>Scores</dt>
          <dd data-testid="session-scores">
            <ScoreBadges scores={first.scores} format={formatScore} />
          </dd>
        </div>
        <div>
          <dt>Users</dt>
          <dd>
            {first.userIds.length
              ? first.userIds.map((u) => (
                  <span key={u} className="group-user">
                    <UserLink projectId={projectId} id={u} />
                  </span>
                ))
              : '–'}
          </dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>
            {formatTime(first.firstTraceAt)} to {formatTime(first.lastTraceAt)}
          </dd>
        </div>
      </dl>
      <section aria-label="Conversation" className="session-conversation">
        {traces.map((trace, i) => (
          <Turn key={trace.id} projectId={projectId} trace={trace} index={i} />
        ))}
      </section>
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          {pages.isFetchingNextPage ? 'Loading…' : `Later traces (${traces.length} of ${first.traceCount} shown)`}
        </button>
      )}
    </article>
  );
}
