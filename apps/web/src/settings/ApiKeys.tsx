import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ADMIN_ROLES, hasRole } from '../../../../libs/domain/src/roles';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { formatTime } from '../lib/format';
import type { Org } from '../lib/projects';
import { type Outputs, errorMessage, rpc } from '../rpc';

type Created = Outputs['apiKey']['create'];

export function ApiKeys({ projectId, org }: { projectId: string; org: Org | null }) {
  // The server's rule for creating and revoking keys; until the role is read, nothing is offered.
  const manages = !!org && hasRole(org.role, ADMIN_ROLES);
  const queries = useQueryClient();
  const key = ['api-keys', projectId];
  const { data, error } = useQuery({ queryKey: key, queryFn: () => rpc.apiKey.list.query({ projectId }) });
  const [created, setCreated] = useState<Created | null>(null);
  const create = useMutation({
    mutationFn: (name: string) => rpc.apiKey.create.mutate({ projectId, name }),
    onSuccess: (answer) => {
      setCreated(answer);
      void queries.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => rpc.apiKey.revoke.mutate({ projectId, id }),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    create.mutate(String(new FormData(form).get('name')), { onSuccess: () => form.reset() });
  };
  return (
    <div>
      {manages ? (
        <form onSubmit={submit} className="inline-form" aria-label="Create an API key">
          <label>
            Key name
            <input name="name" required maxLength={200} />
          </label>
          <button type="submit" disabled={create.isPending}>
            Create key
          </button>
        </form>
      ) : (
        org && <p className="muted">Owners and admins create and revoke API keys; you are a {org.role}.</p>
      )}
      {create.error && <p role="alert">{errorMessage(create.error)}</p>}
      {revoke.error && <p role="alert">{errorMessage(revoke.error)}</p>}
      {error && <p role="alert">{errorMessage(error)}</p>}
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
            {manages && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
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
                    <button
                      type="button"
                      onClick={() => {
                        if (window.confirm(`Revoke the key "${k.name}"? Clients using it get 401 at once.`)) revoke.mutate(k.id);
                      }}
                    >
                      Revoke <span className="visually-hidden">{k.name}</span>
                    </button>
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
