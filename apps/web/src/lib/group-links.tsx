import type { MouseEvent } from 'react';
import { Link } from 'react-router';

// A link inside a clickable row must not also open the row's trace.
const stop = (e: MouseEvent) => e.stopPropagation();

/**
 * Where a link sits in a row whose one keyboard stop is its "Open trace" button (the trace list),
 * it is for the pointer only (`inRow`): the keyboard reaches the same link on the trace's page.
 */
interface LinkProps {
  projectId: string;
  id: string | null | undefined;
  inRow?: boolean;
}

/** A session id as a link to its page, wherever one shows (issue 26: "session and user values are links everywhere"). */
export function SessionLink({ projectId, id, inRow = false }: LinkProps) {
  if (!id) return <>–</>;
  return (
    <Link
      to={`/p/${projectId}/sessions/${encodeURIComponent(id)}`}
      onClick={stop}
      title={id}
      tabIndex={inRow ? -1 : undefined}
      data-testid="session-link"
    >
      {id}
    </Link>
  );
}

/** A user id as a link to their page. */
export function UserLink({ projectId, id, inRow = false }: LinkProps) {
  if (!id) return <>–</>;
  return (
    <Link
      to={`/p/${projectId}/users/${encodeURIComponent(id)}`}
      onClick={stop}
      title={id}
      tabIndex={inRow ? -1 : undefined}
      data-testid="user-link"
    >
      {id}
    </Link>
  );
}

/** A score summary of a trace or a group of traces: its mean by name and source. */
export type ScoreSummary = { name: string | null; source: string | null; value: number | null; count: number };

/** A group's scores as badges: name, mean value and how many, by source. */
export function ScoreBadges({ scores, format }: { scores: ScoreSummary[]; format: (v: number | null) => string }) {
  if (!scores.length) return <>–</>;
  return (
    <>
      {scores.map((s) => (
        <span key={`${s.name}-${s.source}`} className="score" title={`${s.count} score(s), source ${s.source}`}>
          {s.name}: {format(s.value)} ({s.count})
        </span>
      ))}
    </>
  );
}
