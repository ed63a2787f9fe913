import { PLANS } from '@app/domain/limits';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { ErrorAlert } from '../components/ErrorAlert';
import { useAuditLog } from '../data/organization';
import type { Org } from '../data/projects';
import { formatTime } from '../lib/format';
import { plansWith } from '../lib/plans';

/**
 * The organization's audit log, for owners and admins on the plans that have one. Anyone else
 * reads why not (the plans that have it, or the roles that read it) rather than the server's 403.
 */
export function AuditLog({ org }: { org: Org }) {
  if (!PLANS[org.plan].auditLogs) {
    return (
      <p role="note">
        Audit logs come with the {plansWith('auditLogs')} plans; {org.name} is on the {org.plan} plan.
      </p>
    );
  }
  if (!hasRole(org.role, ADMIN_ROLES))
    return (
      <p role="note">
        Owners and admins read the audit log of {org.name}; you are a {org.role}.
      </p>
    );
  return <AuditEntries org={org} />;
}

function AuditEntries({ org }: { org: Org }) {
  const log = useAuditLog(org.id);
  if (log.error) return <ErrorAlert error={log.error} />;
  const rows = log.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div>
      <table className="plain">
        <caption>Audit log of {org.name}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Action</th>
            <th scope="col">Actor</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <td>{formatTime(String(r.createdAt))}</td>
              <td>{r.action}</td>
              <td>{r.actorUserId ?? '–'}</td>
              <td>
                <code>{r.target ?? ''}</code>
              </td>
              <td>
                <code>{JSON.stringify(r.details)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {log.hasNextPage && (
        <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          Older entries
        </button>
      )}
    </div>
  );
}
