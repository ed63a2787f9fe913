import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ADMIN_ROLES, hasRole } from '../../../../libs/domain/src/roles';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { fieldErrors } from '../lib/field-errors';
import type { Org } from '../lib/projects';
import { type Outputs, errorMessage, rpc } from '../rpc';
import { type EvaluatorFormValues, toEvaluatorInput } from './evaluator-form';

type Evaluator = Outputs['evaluator']['list'][number];

const EMPTY: EvaluatorFormValues = { name: '', url: '', headers: '', timeoutMs: '', retries: '', spanTypes: 'LLM', names: '', sampleRate: '', enabled: true };

const valuesOf = (e: Evaluator): EvaluatorFormValues => ({
  name: e.name,
  url: e.url,
  headers: '',
  timeoutMs: String(e.timeoutMs),
  retries: String(e.retries),
  spanTypes: e.filter.spanTypes.join(', '),
  names: e.filter.names.join(', '),
  sampleRate: String(e.filter.sampleRate),
  enabled: e.enabled,
});

function Field({ name, label, error, hint, ...input }: { name: keyof EvaluatorFormValues; label: string; error?: string; hint?: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  const id = `ev-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} aria-invalid={!!error} aria-describedby={`${id}-msg`} {...input} />
      <small id={`${id}-msg`} className={error ? 'error' : 'muted'}>
        {error ?? hint ?? ''}
      </small>
    </div>
  );
}

function EvaluatorForm({ projectId, editing, onDone }: { projectId: string; editing: Evaluator | null; onDone: (secret: string | null) => void }) {
  const initial = editing ? valuesOf(editing) : EMPTY;
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (v: EvaluatorFormValues) => {
      // An edit with the headers box left empty keeps the stored ones (they are never shown again).
      const input = toEvaluatorInput(v, { keepHeaders: !!editing && v.headers.trim() === '' });
      return editing ? rpc.evaluator.update.mutate({ projectId, id: editing.id, ...input }) : rpc.evaluator.create.mutate({ projectId, ...input });
    },
    onSuccess: (answer) => onDone('signingSecret' in answer ? (answer.signingSecret as string) : null),
    onError: (err) => setError(errorMessage(err)),
  });
  const errors = error ? fieldErrors(error) : { byField: {}, general: [] };
  const by = errors.byField as Record<string, string | undefined>;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: keyof EvaluatorFormValues) => String(f.get(k) ?? '');
    setError(null);
    save.mutate({ name: text('name'), url: text('url'), headers: text('headers'), timeoutMs: text('timeoutMs'), retries: text('retries'), spanTypes: text('spanTypes'), names: text('names'), sampleRate: text('sampleRate'), enabled: f.get('enabled') === 'on' });
  };
  return (
    <form onSubmit={submit} className="evaluator-form" aria-label={editing ? `Edit evaluator ${editing.name}` : 'Create an evaluator'} noValidate>
      <Field name="name" label="Name (the score name)" defaultValue={initial.name} error={by.name} required />
      <Field name="url" label="Webhook URL" defaultValue={initial.url} error={by.url} hint="HTTPS in production" required />
      <div className="field">
        <label htmlFor="ev-headers">Headers, one per line as Name: value</label>
        <textarea id="ev-headers" name="headers" rows={2} defaultValue="" aria-invalid={!!by.headers} aria-describedby="ev-headers-msg" />
        <small id="ev-headers-msg" className={by.headers ? 'error' : 'muted'}>
          {by.headers ?? (editing ? `Stored: ${Object.keys(editing.headers).join(', ') || 'none'}. Leave empty to keep them.` : 'Values are never shown again.')}
        </small>
      </div>
      <Field name="timeoutMs" label="Time-out (ms)" type="number" defaultValue={initial.timeoutMs} error={by.timeoutMs} hint="1000 to 30000, default 10000" />
      <Field name="retries" label="Retries" type="number" defaultValue={initial.retries} error={by.retries} hint="0 to 5, default 1" />
      <Field name="spanTypes" label="Span types (comma-separated)" defaultValue={initial.spanTypes} error={by.spanTypes} />
      <Field name="names" label="Span names (comma-separated, empty for any)" defaultValue={initial.names} error={by.names} />
      <Field name="sampleRate" label="Sample rate" type="number" step="any" defaultValue={initial.sampleRate} error={by.sampleRate} hint="0 to 1, default 1" />
      <div className="field">
        <label>
          <input type="checkbox" name="enabled" defaultChecked={initial.enabled} /> Enabled
        </label>
        {by.enabled && <small className="error">{by.enabled}</small>}
      </div>
      {errors.general.length > 0 && (
        <p role="alert" className="error">
          {errors.general.join('; ')}
        </p>
      )}
      {Object.keys(errors.byField).length > 0 && (
        <p role="alert" className="error">
          Please correct the fields marked above.
        </p>
      )}
      <button type="submit" disabled={save.isPending}>
        {editing ? 'Save changes' : 'Create evaluator'}
      </button>
      <button type="button" onClick={() => onDone(null)}>
        Cancel
      </button>
    </form>
  );
}

export function Evaluators({ projectId, org }: { projectId: string; org: Org | null }) {
  // The server's rule for every change to an evaluator; until the role is read, nothing is offered.
  const manages = !!org && hasRole(org.role, ADMIN_ROLES);
  const queries = useQueryClient();
  const key = ['evaluators', projectId];
  const { data, error } = useQuery({ queryKey: key, queryFn: () => rpc.evaluator.list.query({ projectId }) });
  const [form, setForm] = useState<{ editing: Evaluator | null } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => void queries.invalidateQueries({ queryKey: key });
  const toggle = useMutation({ mutationFn: (e: Evaluator) => rpc.evaluator.update.mutate({ projectId, id: e.id, enabled: !e.enabled }), onSuccess: refresh });
  const rotate = useMutation({ mutationFn: (e: Evaluator) => rpc.evaluator.rotateSecret.mutate({ projectId, id: e.id }), onSuccess: (a) => setSecret(a.signingSecret) });
  const remove = useMutation({ mutationFn: (e: Evaluator) => rpc.evaluator.delete.mutate({ projectId, id: e.id }), onSuccess: refresh });
  const failure = toggle.error ?? rotate.error ?? remove.error ?? error;
  return (
    <div>
      {manages && !form && (
        <button type="button" onClick={() => setForm({ editing: null })}>
          New evaluator
        </button>
      )}
      {org && !manages && <p className="muted">Owners and admins create, edit and delete evaluators; you are a {org.role}.</p>}
      {form && (
        <EvaluatorForm
          key={form.editing?.id ?? 'new'}
          projectId={projectId}
          editing={form.editing}
          onDone={(s) => {
            setForm(null);
            if (s) setSecret(s);
            refresh();
          }}
        />
      )}
      {failure && <p role="alert">{errorMessage(failure)}</p>}
      {secret && (
        <Dialog title="Signing secret" onClose={() => setSecret(null)}>
          <p>Webhook calls are signed with this secret (Standard Webhooks). It is shown only now.</p>
          <p>
            <code data-testid="signing-secret">{secret}</code> <CopyButton value={secret} label="signing secret" />
          </p>
        </Dialog>
      )}
      <table className="plain">
        <caption>Webhook evaluators</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">URL</th>
            <th scope="col">Span types</th>
            <th scope="col">Sample rate</th>
            <th scope="col">Status</th>
            {manages && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {(data ?? []).map((e) => (
            <tr key={e.id}>
              <td>{e.name}</td>
              <td>
                <code>{e.url}</code>
              </td>
              <td>{e.filter.spanTypes.join(', ')}</td>
              <td className="num">{e.filter.sampleRate}</td>
              <td>{e.enabled ? 'enabled' : 'disabled'}</td>
              {manages && (
                <td className="actions">
                  <button type="button" onClick={() => setForm({ editing: e })}>
                    Edit <span className="visually-hidden">{e.name}</span>
                  </button>
                  <button type="button" onClick={() => toggle.mutate(e)}>
                    {e.enabled ? 'Disable' : 'Enable'} <span className="visually-hidden">{e.name}</span>
                  </button>
                  <button type="button" onClick={() => rotate.mutate(e)}>
                    Rotate secret <span className="visually-hidden">of {e.name}</span>
                  </button>
                  <button
                    type="button"
                    onClick={() => {
                      if (window.confirm(`Delete the evaluator "${e.name}"?`)) remove.mutate(e);
                    }}
                  >
                    Delete <span className="visually-hidden">{e.name}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
