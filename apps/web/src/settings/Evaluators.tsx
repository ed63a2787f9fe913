import { type FormEvent, useState } from 'react';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { CopyButton } from '../components/CopyButton';
import { ActionsHead, ConfirmButton } from '../components/RowActions';
import { Dialog } from '../components/Dialog';
import { ErrorAlert } from '../components/ErrorAlert';
import { FormErrors, formFields } from '../components/form/fields';
import { type Evaluator, useEvaluatorActions, useEvaluators, useRefreshEvaluators, useSaveEvaluator } from '../data/evaluators';
import { formErrors } from '../lib/field-errors';
import type { Org } from '../data/projects';
import { errorMessage } from '../rpc';
import { type EvaluatorFormValues, toEvaluatorInput } from './evaluator-form';

const EMPTY: EvaluatorFormValues = {
  name: '',
  url: '',
  headers: '',
  timeoutMs: '',
  retries: '',
  spanTypes: 'LLM',
  names: '',
  sampleRate: '',
  enabled: true,
};

const valuesOf = (e: Evaluator): EvaluatorFormValues => ({
  name: e.name,
  // A judge has no URL; its form comes with the judge's fields (issue 29).
  url: e.url ?? '',
  headers: '',
  timeoutMs: String(e.timeoutMs),
  retries: String(e.retries),
  spanTypes: e.filter.spanTypes.join(', '),
  names: e.filter.names.join(', '),
  sampleRate: String(e.filter.sampleRate),
  enabled: e.enabled,
});

const FORM_FIELDS = Object.keys(EMPTY) as (keyof EvaluatorFormValues)[];
const { Field, TextArea, Check } = formFields<EvaluatorFormValues>('ev');

function EvaluatorForm({
  projectId,
  editing,
  onDone,
}: {
  projectId: string;
  editing: Evaluator | null;
  onDone: (secret: string | null) => void;
}) {
  const initial = editing ? valuesOf(editing) : EMPTY;
  const [error, setError] = useState<string | null>(null);
  const save = useSaveEvaluator(projectId, editing);
  const { by, general } = formErrors(error, FORM_FIELDS);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: keyof EvaluatorFormValues) => String(f.get(k) ?? '');
    setError(null);
    const values: EvaluatorFormValues = {
      name: text('name'),
      url: text('url'),
      headers: text('headers'),
      timeoutMs: text('timeoutMs'),
      retries: text('retries'),
      spanTypes: text('spanTypes'),
      names: text('names'),
      sampleRate: text('sampleRate'),
      enabled: f.get('enabled') === 'on',
    };
    // An edit with the headers box left empty keeps the stored ones (they are never shown again).
    const input = toEvaluatorInput(values, { keepHeaders: !!editing && values.headers.trim() === '' });
    save.mutate(input, { onSuccess: (answer) => onDone(answer.signingSecret), onError: (err) => setError(errorMessage(err)) });
  };
  return (
    <form
      onSubmit={submit}
      className="evaluator-form"
      aria-label={editing ? `Edit evaluator ${editing.name}` : 'Create an evaluator'}
      noValidate
    >
      <Field name="name" label="Name (the score name)" defaultValue={initial.name} error={by.name} required />
      <Field name="url" label="Webhook URL" defaultValue={initial.url} error={by.url} hint="HTTPS in production" required />
      <TextArea
        name="headers"
        label="Headers, one per line as Name: value"
        rows={2}
        defaultValue=""
        error={by.headers}
        hint={
          editing
            ? `Stored: ${Object.keys(editing.headers).join(', ') || 'none'}. Leave empty to keep them.`
            : 'Values are never shown again.'
        }
      />
      <Field
        name="timeoutMs"
        label="Time-out (ms)"
        type="number"
        defaultValue={initial.timeoutMs}
        error={by.timeoutMs}
        hint="1000 to 30000, default 10000"
      />
      <Field name="retries" label="Retries" type="number" defaultValue={initial.retries} error={by.retries} hint="0 to 5, default 1" />
      <Field name="spanTypes" label="Span types (comma-separated)" defaultValue={initial.spanTypes} error={by.spanTypes} />
      <Field name="names" label="Span names (comma-separated, empty for any)" defaultValue={initial.names} error={by.names} />
      <Field
        name="sampleRate"
        label="Sample rate"
        type="number"
        step="any"
        defaultValue={initial.sampleRate}
        error={by.sampleRate}
        hint="0 to 1, default 1"
      />
      <Check name="enabled" label="Enabled" defaultChecked={initial.enabled} error={by.enabled} />
      <FormErrors general={general} marked={Object.keys(by).length > 0} />
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
  const { data, error } = useEvaluators(projectId);
  const [form, setForm] = useState<{ editing: Evaluator | null } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = useRefreshEvaluators(projectId);
  const { toggle, rotate, remove } = useEvaluatorActions(projectId);
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
      <ErrorAlert error={failure} />
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
            {manages && <ActionsHead />}
          </tr>
        </thead>
        <tbody>
          {(data ?? []).map((e) => (
            <tr key={e.id}>
              <td>{e.name}</td>
              <td>
                <code>{e.url ?? `LLM judge: ${e.judge?.model ?? ''}`}</code>
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
                  <button type="button" onClick={() => rotate.mutate(e, { onSuccess: (a) => setSecret(a.signingSecret) })}>
                    Rotate secret <span className="visually-hidden">of {e.name}</span>
                  </button>
                  <ConfirmButton
                    label="Delete"
                    of={e.name}
                    question={`Delete the evaluator "${e.name}"?`}
                    onConfirm={() => remove.mutate(e)}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
