import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { ErrorAlert } from '../components/ErrorAlert';
import { ActionsHead } from '../components/RowActions';
import { FormErrors, formFields } from '../components/form/fields';
import { useAnnotationQueues, useArchiveQueue, useCreateQueue } from '../data/annotation-queues';
import { useCurrentProject } from '../data/projects';
import { useScoreConfigs } from '../data/scores';
import { formErrors } from '../lib/field-errors';
import { errorMessage } from '../rpc';
import { configRange } from '../settings/ScoreConfigs';

type QueueFormValues = { name: string; description: string; scoreConfigIds: string };
const FORM_FIELDS: (keyof QueueFormValues)[] = ['name', 'description', 'scoreConfigIds'];
const { Field, TextArea } = formFields<QueueFormValues>('aq');

/** A new queue: a name, what it is for, and the score configs its reviewers give (in this order, keys 1..9). */
function QueueForm({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const configs = (useScoreConfigs(projectId).data ?? []).filter((c) => !c.archived);
  const [picked, setPicked] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const create = useCreateQueue(projectId);
  const { by, general } = formErrors(error, FORM_FIELDS);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setError(null);
    create.mutate(
      { name: String(f.get('name') ?? ''), description: String(f.get('description') ?? ''), scoreConfigIds: picked },
      { onSuccess: onDone, onError: (err) => setError(errorMessage(err)) },
    );
  };
  return (
    <form onSubmit={submit} className="evaluator-form" aria-label="Create an annotation queue" noValidate>
      <Field name="name" label="Name" error={by.name} required />
      <TextArea name="description" label="Description" rows={2} error={by.description} hint="What reviewers look for." />
      <fieldset aria-describedby="aq-scoreConfigIds-msg">
        <legend>Score configs to give</legend>
        {!configs.length && <p className="muted">No score configs yet: add them in Settings → Scores.</p>}
        {configs.map((c) => (
          <label key={c.id} className="check">
            <input
              type="checkbox"
              checked={picked.includes(c.id)}
              onChange={(e) => setPicked(e.target.checked ? [...picked, c.id] : picked.filter((id) => id !== c.id))}
            />
            {c.name} <small className="muted">({configRange(c)})</small>
          </label>
        ))}
        <small id="aq-scoreConfigIds-msg" className={by.scoreConfigIds ? 'error' : 'muted'}>
          {by.scoreConfigIds ?? 'In the order picked: keys 1 to 9 in the review.'}
        </small>
      </fieldset>
      <FormErrors general={general} marked={Object.keys(by).length > 0} />
      <button type="submit" disabled={create.isPending}>
        Create queue
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** Annotation queues (issue 30): each with its progress; a queue opens its review. */
export function QueuesPage() {
  const { projectId, org } = useCurrentProject();
  const manages = !!org && hasRole(org.role, ADMIN_ROLES);
  const { data, error, isLoading } = useAnnotationQueues(projectId);
  const archive = useArchiveQueue(projectId);
  const [creating, setCreating] = useState(false);
  const queues = data ?? [];
  return (
    <section aria-labelledby="queues-title">
      <div className="page-head">
        <h1 id="queues-title">Annotation queues</h1>
        {manages && !creating && (
          <button type="button" onClick={() => setCreating(true)}>
            New queue
          </button>
        )}
      </div>
      <p className="muted">
        Traces and spans to review by hand: add them from the trace list or a trace, then work through a queue with the keyboard. An item is
        held for one reviewer at a time.
      </p>
      {org && !manages && <p className="muted">Owners and admins create and archive queues; you are a {org.role}.</p>}
      {creating && <QueueForm projectId={projectId} onDone={() => setCreating(false)} />}
      {isLoading && <p role="status">Loading queues…</p>}
      <ErrorAlert error={archive.error ?? error} />
      {data && !queues.length && <p>No annotation queues yet.</p>}
      {queues.length > 0 && (
        <table className="plain">
          <caption>Annotation queues</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col" className="num">
                Completed
              </th>
              <th scope="col" className="num">
                Pending
              </th>
              <th scope="col" className="num">
                Skipped
              </th>
              <th scope="col">Completed by</th>
              <ActionsHead />
            </tr>
          </thead>
          <tbody>
            {queues.map((q) => (
              <tr key={q.id} className={q.archived ? 'muted' : undefined}>
                <td>
                  {q.archived ? q.name : <Link to={`/p/${projectId}/queues/${q.id}`}>{q.name}</Link>}
                  {q.archived && ' (archived)'}
                </td>
                <td className="preview">{q.description ?? ''}</td>
                <td className="num" data-testid="queue-progress">
                  {q.completed}/{q.total}
                </td>
                <td className="num">{q.pending}</td>
                <td className="num">{q.skipped}</td>
                <td>{q.reviewers.map((r) => `${r.email} (${r.completed})`).join(', ')}</td>
                <td>
                  <div className="actions">
                    {!q.archived && q.pending > 0 && <Link to={`/p/${projectId}/queues/${q.id}`}>Review</Link>}
                    {manages && (
                      <button type="button" onClick={() => archive.mutate(q)}>
                        {q.archived ? 'Restore' : 'Archive'} <span className="visually-hidden">queue {q.name}</span>
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
