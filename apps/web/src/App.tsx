import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, Route, Routes, useLocation, useNavigate, useParams } from 'react-router';
import { Layout } from './components/Layout';
import { DatasetPage } from './pages/DatasetPage';
import { DatasetsPage } from './pages/DatasetsPage';
import { GroupsPage, SESSIONS, USERS } from './pages/GroupsPage';
import { LoginPage } from './pages/LoginPage';
import { MonitorsPage } from './pages/MonitorsPage';
import { OverviewPage } from './pages/OverviewPage';
import { ProjectPicker } from './pages/ProjectPicker';
import { PromptsPage } from './pages/PromptsPage';
import { QueueReviewPage } from './pages/QueueReviewPage';
import { QueuesPage } from './pages/QueuesPage';
import { RunComparePage } from './pages/RunComparePage';
import { SessionPage } from './pages/SessionPage';
import { SettingsPage } from './pages/SettingsPage';
import { TracePage } from './pages/TracePage';
import { TracesPage } from './pages/TracesPage';
import { UserPage } from './pages/UserPage';
import { useSession } from './session/useSession';

export function App() {
  const { status, lastEvent } = useSession();
  const queries = useQueryClient();
  const location = useLocation();
  const navigate = useNavigate();

  // Another user's data must never show from the cache after a logout or an expiry.
  useEffect(() => {
    if (status === 'signed-out') queries.clear();
  }, [status, queries]);

  useEffect(() => {
    if (status === 'signed-out' && location.pathname !== '/login') {
      void navigate('/login', { replace: true, state: { from: location.pathname + location.search, expired: lastEvent === 'expired' } });
    }
  }, [status, location, lastEvent, navigate]);

  if (status === 'restoring')
    return (
      <p className="centered" role="status">
        Restoring your session…
      </p>
    );
  return (
    <Routes>
      <Route path="/login" element={status === 'signed-in' ? <Navigate to="/" replace /> : <LoginPage />} />
      <Route element={<Layout />}>
        <Route index element={<ProjectPicker />} />
        <Route path="/p/:projectId" element={<Navigate to="traces" replace />} />
        <Route path="/p/:projectId/traces" element={<TracesPage />} />
        <Route path="/p/:projectId/traces/:traceId" element={<TracePage />} />
        <Route path="/project/:projectId/traces/:traceId" element={<LangfuseTraceLink />} />
        <Route path="/p/:projectId/sessions" element={<GroupsPage key="sessions" kind={SESSIONS} />} />
        <Route path="/p/:projectId/sessions/:sessionId" element={<SessionPage />} />
        <Route path="/p/:projectId/users" element={<GroupsPage key="users" kind={USERS} />} />
        <Route path="/p/:projectId/users/:userId" element={<UserPage />} />
        <Route path="/p/:projectId/overview" element={<OverviewPage />} />
        <Route path="/p/:projectId/prompts" element={<PromptsPage />} />
        <Route path="/p/:projectId/datasets" element={<DatasetsPage />} />
        <Route path="/p/:projectId/datasets/:name" element={<DatasetPage />} />
        <Route path="/p/:projectId/datasets/:name/compare" element={<RunComparePage />} />
        <Route path="/p/:projectId/queues" element={<QueuesPage />} />
        <Route path="/p/:projectId/queues/:queueId" element={<QueueReviewPage />} />
        <Route path="/p/:projectId/monitors" element={<MonitorsPage />} />
        <Route path="/p/:projectId/settings" element={<Navigate to="keys" replace />} />
        <Route path="/p/:projectId/settings/:tab" element={<SettingsPage />} />
        <Route path="*" element={<p role="alert">No such page.</p>} />
      </Route>
    </Routes>
  );
}

/**
 * The trace link Langfuse's clients build from `GET /api/public/projects` (an experiment's
 * result, `getTraceUrl`): the trace page, which takes the OTel hex id they name it by.
 */
function LangfuseTraceLink() {
  const { projectId = '', traceId = '' } = useParams();
  return <Navigate to={`/p/${encodeURIComponent(projectId)}/traces/${encodeURIComponent(traceId)}`} replace />;
}
