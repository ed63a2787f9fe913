import { useState } from 'react';
import { Link } from 'react-router';
import { EVAL_RUN_STATUSES, type EvalRunStatus } from '@app/domain/evaluators/eval-run';
import { ErrorAlert } from '../components/ErrorAlert';
import { formFields } from '../components/form/fields';
import { type EvalRun, type Evaluator, useEvaluatorRuns } from '../data/evaluators';
import { formatMs, formatTime, preview } from '../lib/format';
import { judgeCallText, scoreText } from './EvaluatorTest';

const { Choice } = formFields<{ status: string }>('runs');
const ALL = 'all';

const took = (run: EvalRun) => (run.startedAt && run.finishedAt ? formatMs(Date.parse(run.finishedAt) - Date.parse(run.startedAt)) : '–');

/** The evaluator's Runs tab (issue 29): every run with its status and why, newest first, failed runs set apart. */
export function EvaluatorRuns({ projectId, evaluator }: { projectId: string; evaluator: Evaluator }) {
  const [status, setStatus] = useState<EvalRunStatus | null>(null);
  const runs = useEvaluatorRuns(projectId, evaluator.id, status);
  const rows = runs.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div>
      <div className="runs-head">
        <Choice
          name="status"
          label="Status"
          options={[ALL, ...EVAL_RUN_STATUSES]}
          value={status ?? ALL}
          onChange={(e) => setStatus(e.target.value === ALL ? null : (e.target.value as EvalRunStatus))}
        />
        <button type="button" onClick={() => void runs.refetch()} disabled={runs.isFetching}>
          Refresh
        </button>
      </div>
      <ErrorAlert error={runs.error} />
      <table className="plain runs">
        <caption className="visually-hidden">Runs of {evaluator.name}</caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Reason</th>
            <th scope="col">On</th>
            <th scope="col">Queued</th>
            <th scope="col">Took</th>
            <th scope="col">Attempts</th>
            <th scope="col">Score</th>
            <th scope="col">Comment</th>
            <th scope="col">Error</th>
            <th scope="col">Judge call</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((run) => (
            <tr key={run.id} className={`run-row run-row-${run.status}`} data-status={run.status}>
              <td className="nowrap">
                <span className={`run-status run-${run.status}`}>{run.status}</span>
              </td>
              <td className={run.status === 'failed' ? 'error' : undefined}>{run.reason ?? '–'}</td>
              <td className="nowrap">
                <Link to={`/p/${projectId}/traces/${encodeURIComponent(run.traceId)}`} title={run.spanId ?? run.traceId}>
                  {run.spanId ? `span ${run.spanId.slice(0, 8)}` : `trace ${run.traceId.slice(0, 8)}`}
                </Link>
              </td>
              <td className="nowrap" title={`started ${formatTime(run.startedAt)}, finished ${formatTime(run.finishedAt)}`}>
                {formatTime(run.createdAt)}
              </td>
              <td className="num nowrap">{took(run)}</td>
              <td className="num">{run.attempts}</td>
              <td className="num" data-testid="run-score">
                {scoreText(run.score, run.pass)}
              </td>
              <td title={run.comment ?? undefined}>{preview(run.comment, 60) || '–'}</td>
              <td className="error" title={run.error ?? undefined}>
                {preview(run.error, 60)}
              </td>
              <td>{judgeCallText(run.judge)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.isLoading && <p role="status">Loading runs…</p>}
      {!runs.isLoading && !runs.error && rows.length === 0 && (
        <p className="muted">
          {status
            ? `No ${status} runs.`
            : 'No runs yet: a run is recorded for every span or trace the evaluator takes, sampled out or not.'}
        </p>
      )}
      {runs.hasNextPage && (
        <button type="button" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          Load more
        </button>
      )}
    </div>
  );
}
