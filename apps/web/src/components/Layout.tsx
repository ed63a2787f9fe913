import { useEffect } from 'react';
import { NavLink, Outlet, useNavigate, useParams } from 'react-router';
import { useMonitors } from '../data/monitors';
import { rememberProject, useOrgProjects } from '../data/projects';
import { session } from '../rpc';
import { useSession } from '../session/useSession';

function ProjectSwitcher() {
  const { projectId } = useParams();
  const { data, isLoading } = useOrgProjects();
  const navigate = useNavigate();
  if (isLoading || !data) return null;
  return (
    <label className="switcher">
      <span>Project</span>
      <select
        value={projectId ?? ''}
        onChange={(e) => {
          if (e.target.value) void navigate(`/p/${e.target.value}/traces`);
        }}
      >
        {!projectId && <option value="">Choose a project…</option>}
        {data.map(({ org, projects }) => (
          <optgroup key={org.id} label={`${org.name} (${org.plan})`}>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {org.name} / {p.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}

/** The Monitors link, with how many of the project's monitors are in ALERT (polled with the page). */
function MonitorsLink({ projectId }: { projectId: string }) {
  const { data } = useMonitors(projectId);
  const alerts = (data ?? []).filter((m) => m.enabled && m.state === 'ALERT').length;
  return (
    <NavLink to={`/p/${projectId}/monitors`}>
      Monitors
      {alerts > 0 && (
        <span className="nav-count" data-testid="nav-alert-count">
          {alerts}
          <span className="visually-hidden"> in ALERT</span>
        </span>
      )}
    </NavLink>
  );
}

export function Layout() {
  const { projectId } = useParams();
  const { current } = useSession();
  const navigate = useNavigate();
  useEffect(() => {
    if (projectId) rememberProject(projectId);
  }, [projectId]);
  return (
    <div className="app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Spanlog</span>
        <ProjectSwitcher />
        {projectId && (
          <nav aria-label="Project">
            <NavLink to={`/p/${projectId}/traces`}>Traces</NavLink>
            <NavLink to={`/p/${projectId}/sessions`}>Sessions</NavLink>
            <NavLink to={`/p/${projectId}/users`}>Users</NavLink>
            <NavLink to={`/p/${projectId}/overview`}>Overview</NavLink>
            <NavLink to={`/p/${projectId}/prompts`}>Prompts</NavLink>
            <NavLink to={`/p/${projectId}/datasets`}>Datasets</NavLink>
            <NavLink to={`/p/${projectId}/queues`}>Queues</NavLink>
            <MonitorsLink projectId={projectId} />
            <NavLink to={`/p/${projectId}/settings`}>Settings</NavLink>
          </nav>
        )}
        <span className="user" title={current?.user.email}>
          {current?.user.email}
        </span>
        <button
          type="button"
          onClick={() => {
            void session.logout().then(() => navigate('/login', { replace: true }));
          }}
        >
          Log out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
