import { useId, useState } from 'react';
import { type QueueAddition, useAddToQueue, useAnnotationQueues } from '../data/annotation-queues';
import { errorMessage } from '../rpc';

/** One way of adding: what the button says, and what it adds. */
export interface QueueChoice {
  label: string;
  addition: QueueAddition;
  disabled?: boolean;
}

/** A queue picker and a button per way of adding to it (a selection, the list's filters, a trace, a span). */
export function AddToQueue({
  projectId,
  choices,
  label = 'Add to annotation queue',
}: {
  projectId: string;
  choices: QueueChoice[];
  label?: string;
}) {
  const id = useId();
  const queues = (useAnnotationQueues(projectId).data ?? []).filter((q) => !q.archived);
  const [queueId, setQueueId] = useState('');
  const add = useAddToQueue(projectId);
  const chosen = queueId || queues[0]?.id || '';
  if (!queues.length) return null;
  return (
    <div className="add-to-queue" role="group" aria-label={label}>
      <label htmlFor={id}>Queue</label>
      <select id={id} value={chosen} onChange={(e) => setQueueId(e.target.value)}>
        {queues.map((q) => (
          <option key={q.id} value={q.id}>
            {q.name}
          </option>
        ))}
      </select>
      {choices.map((c) => (
        <button
          key={c.label}
          type="button"
          disabled={c.disabled || add.isPending || !chosen}
          onClick={() => add.mutate({ queueId: chosen, addition: c.addition })}
        >
          {c.label}
        </button>
      ))}
      <span role="status" className={add.error ? 'error' : 'muted'}>
        {add.error
          ? errorMessage(add.error)
          : add.data
            ? `Added ${add.data.added}${add.data.requested > add.data.added ? ` (${add.data.requested - add.data.added} already queued)` : ''}`
            : ''}
      </span>
    </div>
  );
}
