import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { formatTime } from '../lib/format';
import type { Org } from '../lib/projects';
import { errorMessage, rpc } from '../rpc';

const ROLES = ['member', 'admin', 'owner'] as const;

export function Members({ org }: { org: Org }) {
  const queries = useQueryClient();
  const key = ['members', org.id];
  const { data, error } = useQuery({ queryKey: key, queryFn: () => rpc.member.list.query({ orgId: org.id }) });
  const add = useMutation({
    mutationFn: (input: { email: string; role: (typeof ROLES)[number] }) => rpc.member.add.mutate({ orgId: org.id, ...input }),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const remove = useMutation({
    mutationFn: (userId: string) => rpc.member.remove.mutate({ orgId: org.id, userId }),
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    add.mutate({ email: String(form.get('email')), role: String(form.get('role')) as (typeof ROLES)[number] });
  };
  return (
    <div>
      <p>
        {org.name} is on the <strong>{org.plan}</strong> plan; each member takes a seat, and the plan sets how many there are.
      </p>
      <form onSubmit={submit} className="inline-form" aria-label="Add a member">
        <label>
          E-mail of an existing user
          <input name="email" type="email" required />
        </label>
        <label>
          Role
          <select name="role" defaultValue="member">
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={add.isPending}>
          Add member
        </button>
      </form>
      {add.error && <p role="alert">{errorMessage(add.error)}</p>}
      {add.isSuccess && <p role="status">Added, if an account with that e-mail exists.</p>}
      {remove.error && <p role="alert">{errorMessage(remove.error)}</p>}
      {error && <p role="alert">{errorMessage(error)}</p>}
      <table className="plain">
        <caption>Members of {org.name}</caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Since</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(data ?? []).map((m) => (
            <tr key={m.userId}>
              <td>{m.email}</td>
              <td>{m.role}</td>
              <td>{formatTime(String(m.createdAt))}</td>
              <td>
                <button
                  type="button"
                  onClick={() => {
                    if (window.confirm(`Remove ${m.email} from ${org.name}?`)) remove.mutate(m.userId);
                  }}
                >
                  Remove <span className="visually-hidden">{m.email}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
