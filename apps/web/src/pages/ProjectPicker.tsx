import { Link, Navigate } from 'react-router';
import { lastProject, useOrgProjects } from '../data/projects';
import { errorMessage } from '../rpc';

/** The landing page: a user with one project lands in it; with several, in the last one used, or picks. */
export function ProjectPicker() {
  const { data, error, isLoading } = useOrgProjects();
  if (isLoading) return <p role="status">Loading your projects…</p>;
  if (error) return <p role="alert">{errorMessage(error)}</p>;
  const all = (data ?? []).flatMap(({ org, projects }) => projects.map((p) => ({ org, p })));
  const only = all.length === 1 ? all[0] : undefined;
  if (only) return <Navigate to={`/p/${only.p.id}/traces`} replace />;
  const last = lastProject();
  if (last && all.some(({ p }) => p.id === last)) return <Navigate to={`/p/${last}/traces`} replace />;
  return (
    <section aria-labelledby="pick-title">
      <h1 id="pick-title">Choose a project</h1>
      {all.length === 0 && <p>You are not a member of any project yet. An owner can add you, or `spanlog` can create one.</p>}
      {(data ?? []).map(({ org, projects }) => (
        <div key={org.id}>
          <h2>
            {org.name}{' '}
            <small>
              ({org.plan}, {org.role})
            </small>
          </h2>
          <ul>
            {projects.map((p) => (
              <li key={p.id}>
                <Link to={`/p/${p.id}/traces`}>{p.name}</Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}
