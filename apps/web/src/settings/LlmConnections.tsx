import { type FormEvent, useState } from 'react';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { ActionsHead, ConfirmButton } from '../components/RowActions';
import { ErrorAlert } from '../components/ErrorAlert';
import { FormErrors, formFields } from '../components/form/fields';
import { type LlmConnection, useLlmConnectionChanges, useLlmConnections } from '../data/llm-connections';
import type { Org } from '../data/projects';
import { formErrors } from '../lib/field-errors';
import { formatTime } from '../lib/format';
import { errorMessage } from '../rpc';
import { type LlmConnectionFormValues, toLlmConnectionInput } from './llm-connection-form';

const FORM_FIELDS: (keyof LlmConnectionFormValues)[] = ['name', 'baseUrl', 'apiKey', 'headers'];
const { Field, TextArea } = formFields<LlmConnectionFormValues>('conn');

function ConnectionForm({ projectId, editing, onDone }: { projectId: string; editing: LlmConnection | null; onDone: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const { save } = useLlmConnectionChanges(projectId);
  const { by, general } = formErrors(error, FORM_FIELDS);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: keyof LlmConnectionFormValues) => String(f.get(k) ?? '');
    setError(null);
    const fields = toLlmConnectionInput(
      { name: text('name'), baseUrl: text('baseUrl'), apiKey: text('apiKey'), headers: text('headers') },
      { editing: !!editing },
    );
    save.mutate({ id: editing?.id, fields }, { onSuccess: onDone, onError: (err) => setError(errorMessage(err)) });
  };
  const stored = editing ? 'Stored, never shown. Leave empty to keep it.' : undefined;
  return (
    <form
      onSubmit={submit}
      className="evaluator-form"
      aria-label={editing ? `Edit LLM connection ${editing.name}` : 'Create an LLM connection'}
      noValidate
    >
      <Field name="name" label="Name" defaultValue={editing?.name ?? ''} error={by.name} required />
      <Field
        name="baseUrl"
        label="Base URL"
        type="url"
        defaultValue={editing?.baseUrl ?? ''}
        error={by.baseUrl}
        hint="OpenAI-compatible, e.g. https://api.openai.com/v1"
        required
      />
      {/* A password field, empty even on an edit: the key is never sent back to the browser. */}
      <Field
        name="apiKey"
        label="API key"
        type="password"
        autoComplete="off"
        defaultValue=""
        error={by.apiKey}
        hint={stored ?? 'Sent as Authorization: Bearer …; never shown again.'}
        required={!editing}
      />
      <TextArea
        name="headers"
        label="Extra headers, one per line as Name: value (optional)"
        rows={2}
        defaultValue=""
        error={by.headers}
        hint={editing ? `Stored: ${editing.headerNames.join(', ') || 'none'}. Leave empty to keep them.` : 'Values are never shown again.'}
      />
      <FormErrors general={general} marked={Object.keys(by).length > 0} />
      <div className="form-actions">
        <button type="submit" disabled={save.isPending}>
          {editing ? 'Save changes' : 'Create connection'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Settings → LLM connections: the OpenAI-compatible endpoints the project's LLM judges call (issue 29). */
export function LlmConnections({ projectId, org }: { projectId: string; org: Org | null }) {
  // The server's rule for every change to a connection; until the role is read, nothing is offered.
  const manages = !!org && hasRole(org.role, ADMIN_ROLES);
  const { data, error, isLoading } = useLlmConnections(projectId);
  const [form, setForm] = useState<{ editing: LlmConnection | null } | null>(null);
  const { remove } = useLlmConnectionChanges(projectId);
  const connections = data ?? [];
  return (
    <div>
      {manages && !form && (
        <button type="button" onClick={() => setForm({ editing: null })}>
          New connection
        </button>
      )}
      {org && !manages && <p className="muted">Owners and admins create, edit and delete connections; you are a {org.role}.</p>}
      {form && <ConnectionForm key={form.editing?.id ?? 'new'} projectId={projectId} editing={form.editing} onDone={() => setForm(null)} />}
      <ErrorAlert error={remove.error ?? error} />
      <table className="plain">
        <caption>LLM connections</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Base URL</th>
            <th scope="col">Extra headers</th>
            <th scope="col">Updated</th>
            {manages && <ActionsHead />}
          </tr>
        </thead>
        <tbody>
          {connections.map((c) => (
            <tr key={c.id}>
              <td>{c.name}</td>
              <td>
                <code>{c.baseUrl}</code>
              </td>
              <td>{c.headerNames.join(', ') || '–'}</td>
              <td>{formatTime(c.updatedAt)}</td>
              {manages && (
                <td className="actions">
                  <button type="button" onClick={() => setForm({ editing: c })}>
                    Edit <span className="visually-hidden">{c.name}</span>
                  </button>
                  <ConfirmButton
                    label="Delete"
                    of={c.name}
                    question={`Delete the connection "${c.name}"? Judges that use it will record failed runs.`}
                    onConfirm={() => remove.mutate(c.id, { onSuccess: () => form?.editing?.id === c.id && setForm(null) })}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {!isLoading && !error && connections.length === 0 && (
        <p className="muted">No LLM connections in this project yet: an LLM judge evaluator needs one.</p>
      )}
    </div>
  );
}
