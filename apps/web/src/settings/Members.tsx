import type { FormEvent } from 'react';
import { ADMIN_ROLES, OWNER_ROLES, hasRole } from '@app/domain/roles';
import { ErrorAlert } from '../components/ErrorAlert';
import { ActionsHead, ConfirmButton } from '../components/RowActions';
import { formFields } from '../components/form/fields';
import { useMemberChanges, useMembers } from '../data/organization';
import type { Org } from '../data/projects';
import { formatTime } from '../lib/format';
import { seatsLeft, seatsText } from '../lib/plans';

type Role = Org['role'];
const ROLES: readonly Role[] = ['member', 'admin', 'owner'];
const { Field, Choice } = formFields<{ email: string; role: Role }>('member');

/** Adding a member, for owners and admins; only owners may make another owner (the server's rule). */
function AddMember({ org, full }: { org: Org; full: boolean }) {
  const { add } = useMemberChanges(org.id);
  const roles = ROLES.filter((r) => r !== 'owner' || hasRole(org.role, OWNER_ROLES));
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    add.mutate({ email: String(form.get('email')), role: String(form.get('role')) as Role });
  };
  return (
    <>
      <form onSubmit={submit} className="inline-form" aria-label="Add a member">
        <Field name="email" label="E-mail of an existing user" type="email" required disabled={full} />
        <Choice name="role" label="Role" options={roles} defaultValue="member" disabled={full} />
        <button type="submit" disabled={full || add.isPending}>
          Add member
        </button>
      </form>
      {full && <p role="note">Every seat of the {org.plan} plan is taken: remove a member or upgrade the plan to add another.</p>}
      <ErrorAlert error={add.error} />
      {add.isSuccess && <p role="status">Added, if an account with that e-mail exists.</p>}
    </>
  );
}

export function Members({ org }: { org: Org }) {
  const { data, error } = useMembers(org.id);
  const { remove } = useMemberChanges(org.id);
  const manages = hasRole(org.role, ADMIN_ROLES);
  // An admin may remove members and admins; an owner only by an owner.
  const removable = (role: Role) => manages && (role !== 'owner' || hasRole(org.role, OWNER_ROLES));
  const members = data ?? [];
  return (
    <div>
      <p>
        {org.name} is on the <strong>{org.plan}</strong> plan; each member takes a seat.{' '}
        {data && <strong data-testid="seats">{seatsText(org.plan, members.length)}</strong>}
      </p>
      {manages ? (
        data && <AddMember org={org} full={seatsLeft(org.plan, members.length) === 0} />
      ) : (
        <p className="muted">Owners and admins add and remove members; you are a {org.role}.</p>
      )}
      <ErrorAlert error={remove.error} />
      <ErrorAlert error={error} />
      <table className="plain">
        <caption>Members of {org.name}</caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Since</th>
            {manages && <ActionsHead />}
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr key={m.userId}>
              <td>{m.email}</td>
              <td>{m.role}</td>
              <td>{formatTime(String(m.createdAt))}</td>
              {manages && (
                <td>
                  {removable(m.role) && (
                    <ConfirmButton
                      label="Remove"
                      of={m.email}
                      question={`Remove ${m.email} from ${org.name}?`}
                      onConfirm={() => remove.mutate(m.userId)}
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
