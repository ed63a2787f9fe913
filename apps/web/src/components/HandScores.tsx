import { type FormEvent, useState } from 'react';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { useCurrentProject } from '../data/projects';
import { type ScoreConfig, useHandScoreActions, useScoreConfigs } from '../data/scores';
import type { Trace } from '../data/traces';
import { formatScore, formatTime } from '../lib/format';
import { errorMessage } from '../rpc';
import { useSession } from '../session/useSession';
import { configRange } from '../settings/ScoreConfigs';
import { ConfirmButton } from './RowActions';

type Score = Trace['scores'][number];
type Value = number | string | boolean;

/** Who may change a score given by hand: its author, an admin or an owner (the server's rule; it decides). */
function useMayChange(): (s: Score) => boolean {
  const { org } = useCurrentProject();
  const { current } = useSession();
  return (s) => !!s.author && (s.author.userId === current?.user.id || (!!org && hasRole(org.role, ADMIN_ROLES)));
}

/** The input a config asks for: a number, one of its categories, or a yes/no toggle. */
function ValueInput({ config, value, onChange, id }: { config: ScoreConfig; value: Value; onChange: (v: Value) => void; id: string }) {
  switch (config.dataType) {
    case 'NUMERIC':
      return (
        <input
          id={id}
          type="number"
          step="any"
          min={config.minValue ?? undefined}
          max={config.maxValue ?? undefined}
          value={typeof value === 'number' ? value : ''}
          onChange={(e) => onChange(e.target.value === '' ? '' : Number(e.target.value))}
        />
      );
    case 'CATEGORICAL':
      return (
        <select id={id} value={String(value)} onChange={(e) => onChange(e.target.value)}>
          {config.categories.map((c) => (
            <option key={c.label} value={c.label}>
              {c.label}
            </option>
          ))}
        </select>
      );
    case 'BOOLEAN':
      return <input id={id} type="checkbox" role="switch" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  }
}

const firstValue = (c: ScoreConfig): Value =>
  c.dataType === 'BOOLEAN' ? false : c.dataType === 'CATEGORICAL' ? (c.categories[0]?.label ?? '') : '';

/**
 * A score given by hand (issue 30): a config, a value of the kind it takes, a comment. New on
 * `target`, or a change of `editing` (whose config stays).
 */
function HandScoreForm({
  projectId,
  target,
  editing,
  onDone,
}: {
  projectId: string;
  target: { traceId: string; spanId?: string; label: string };
  editing: Score | null;
  onDone: () => void;
}) {
  const configs = (useScoreConfigs(projectId).data ?? []).filter((c) => !c.archived);
  const [configId, setConfigId] = useState(() =>
    editing ? (configs.find((c) => c.name === editing.name)?.id ?? '') : (configs[0]?.id ?? ''),
  );
  const config = configs.find((c) => c.id === configId) ?? null;
  const [value, setValue] = useState<Value>(() => (editing ? (editing.value as Value) : config ? firstValue(config) : ''));
  const [comment, setComment] = useState(editing?.comment ?? '');
  const { create, update } = useHandScoreActions(projectId);
  const saving = create.isPending || update.isPending;
  const failure = create.error ?? update.error;
  const prefix = `hs-${target.spanId ?? 'trace'}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (editing) update.mutate({ id: editing.id, value, comment }, { onSuccess: onDone });
    else if (config)
      create.mutate({ traceId: target.traceId, spanId: target.spanId, configId: config.id, value, comment }, { onSuccess: onDone });
  };
  if (!editing && !configs.length) {
    return <p className="muted">No score configs yet: owners and admins add them in Settings → Scores.</p>;
  }
  return (
    <form
      className="hand-score-form"
      aria-label={editing ? `Edit the score ${editing.name}` : `Score ${target.label}`}
      onSubmit={submit}
      noValidate
    >
      <div className="field">
        <label htmlFor={`${prefix}-config`}>Score config</label>
        <select
          id={`${prefix}-config`}
          value={configId}
          disabled={!!editing}
          onChange={(e) => {
            setConfigId(e.target.value);
            const next = configs.find((c) => c.id === e.target.value);
            if (next) setValue(firstValue(next));
          }}
        >
          {editing && !config && <option value="">{editing.name}</option>}
          {configs.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
        {config && <small className="muted">{configRange(config)}</small>}
      </div>
      {config && (
        <div className="field">
          <label htmlFor={`${prefix}-value`}>Value</label>
          <ValueInput id={`${prefix}-value`} config={config} value={value} onChange={setValue} />
        </div>
      )}
      <div className="field">
        <label htmlFor={`${prefix}-comment`}>Comment</label>
        <textarea id={`${prefix}-comment`} rows={2} value={comment} onChange={(e) => setComment(e.target.value)} />
      </div>
      {failure && (
        <p role="alert" className="error">
          {errorMessage(failure)}
        </p>
      )}
      <button type="submit" disabled={saving || (!editing && !config)}>
        Save score
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** The "Score" control of a trace or a span: opens the form, closes it once the score is saved. */
export function ScoreControl({
  projectId,
  traceId,
  spanId,
  label,
}: {
  projectId: string;
  traceId: string;
  spanId?: string;
  label: string;
}) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <button type="button" className="score-control" onClick={() => setOpen(true)}>
        Score <span className="visually-hidden">{label}</span>
      </button>
    );
  }
  return <HandScoreForm projectId={projectId} target={{ traceId, spanId, label }} editing={null} onDone={() => setOpen(false)} />;
}

/** Scores with their source and author; a hand score its viewer may change has Edit and Delete. */
export function ScoreTable({
  projectId,
  scores,
  caption,
  compact = false,
}: {
  projectId: string;
  scores: Score[];
  caption: string;
  /** In the span's panel: no time column, so the table fits beside the tree. */
  compact?: boolean;
}) {
  const mayChange = useMayChange();
  const { remove } = useHandScoreActions(projectId);
  const [editing, setEditing] = useState<Score | null>(null);
  if (!scores.length) return <p className="muted">No {caption.toLowerCase()}.</p>;
  return (
    <>
      <table className="plain">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col">Source</th>
            <th scope="col">Author</th>
            <th scope="col">Comment</th>
            {!compact && <th scope="col">Time</th>}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {scores.map((s) => (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td className="num">{typeof s.value === 'number' ? formatScore(s.value) : String(s.value)}</td>
              <td>{s.source}</td>
              <td>{s.author?.email ?? ''}</td>
              <td>{s.comment ?? ''}</td>
              {!compact && <td>{formatTime(s.timestamp)}</td>}
              <td>
                {mayChange(s) && (
                  <div className="actions">
                    <button type="button" onClick={() => setEditing(s)}>
                      Edit <span className="visually-hidden">score {s.name}</span>
                    </button>
                    <ConfirmButton
                      label="Delete"
                      of={`score ${s.name}`}
                      question={`Delete the score "${s.name}"?`}
                      onConfirm={() => remove.mutate(s.id)}
                    />
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {remove.error && (
        <p role="alert" className="error">
          {errorMessage(remove.error)}
        </p>
      )}
      {editing && (
        <HandScoreForm
          key={editing.id}
          projectId={projectId}
          target={{ traceId: editing.traceId ?? '', spanId: editing.spanId ?? undefined, label: editing.name ?? '' }}
          editing={editing}
          onDone={() => setEditing(null)}
        />
      )}
    </>
  );
}
