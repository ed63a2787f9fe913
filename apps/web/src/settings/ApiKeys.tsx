import { type FormEvent, useState } from 'react';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { CopyButton } from '../components/CopyButton';
import { ActionsHead, ConfirmButton } from '../components/RowActions';
import { Dialog } from '../components/Dialog';
import { ErrorAlert } from '../components/ErrorAlert';
import { formFields } from '../components/form/fields';
import { type CreatedApiKey, useApiKeyChanges, useApiKeys } from '../data/api-keys';
import type { Org } from '../data/projects';
import { formatTime } from '../lib/format';

const { Field } = formFields<{ name: string }>('key');

export function ApiKeys({ projectId, org }: { projectId: string; org: Org | null }) {
  // The server's rule for creating and revoking keys; until the role is read, nothing is offered.
  const manages = !!org && hasRole(org.role, ADMIN_ROLES);
  const { data, error } = useApiKeys(projectId);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const { create, revoke } = useApiKeyChanges(projectId);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    create.mutate(String(new FormData(form).get('name')), {
      onSuccess: (answer) => {
        setCreated(answer);
        form.reset();
      },
    });
  };
  return (
    <div>
      {manages ? (
        <form onSubmit={submit} className="inline-form" aria-label="Create an API key">
          <Field name="name" label="Key name" required maxLength={200} />
          <button type="submit" disabled={create.isPending}>
            Create key
          </button>
        </form>
      ) : (
        org && <p className="muted">Owners and admins create and revoke API keys; you are a {org.role}.</p>
      )}
      <ErrorAlert error={create.error} />
      <ErrorAlert error={revoke.error} />
      <ErrorAlert error={error} />
      {created && (
        <Dialog title="Your new API key" onClose={() => setCreated(null)}>
          <p>This is the only time the secret is shown. Copy it now and keep it somewhere safe.</p>
          <p>
            <code data-testid="new-api-key">{created.apiKey}</code> <CopyButton value={created.apiKey} label="API key" />
          </p>
        </Dialog>
      )}
      <table className="plain">
        <caption>API keys of this project</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            {manages && <ActionsHead />}
          </tr>
        </thead>
        <tbody>
          {(data ?? []).map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td>{formatTime(k.createdAt)}</td>
              <td>{formatTime(k.lastUsedAt)}</td>
              <td>{k.revokedAt ? `revoked ${formatTime(k.revokedAt)}` : 'active'}</td>
              {manages && (
                <td>
                  {!k.revokedAt && (
                    <ConfirmButton
                      label="Revoke"
                      of={k.name}
                      question={`Revoke the key "${k.name}"? Clients using it get 401 at once.`}
                      onConfirm={() => revoke.mutate(k.id)}
                    />
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
