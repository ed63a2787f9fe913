import { useNavigate, useParams } from 'react-router';
import { TabList, TabPanel } from '../components/Tabs';
import { useCurrentProject } from '../data/projects';
import { ApiKeys } from '../settings/ApiKeys';
import { AuditLog } from '../settings/AuditLog';
import { Evaluators } from '../settings/Evaluators';
import { LlmConnections } from '../settings/LlmConnections';
import { Members } from '../settings/Members';
import { Models } from '../settings/Models';
import { ScoreConfigs } from '../settings/ScoreConfigs';
import { Usage } from '../settings/Usage';

const TABS = [
  { id: 'keys', label: 'API keys' },
  { id: 'members', label: 'Members' },
  { id: 'evaluators', label: 'Evaluators' },
  { id: 'connections', label: 'LLM connections' },
  { id: 'models', label: 'Models' },
  { id: 'scores', label: 'Scores' },
  { id: 'usage', label: 'Usage' },
  { id: 'audit', label: 'Audit log' },
] as const;
type TabId = (typeof TABS)[number]['id'];

export function SettingsPage() {
  const { tab = 'keys' } = useParams();
  const navigate = useNavigate();
  const { projectId, org, project } = useCurrentProject();
  const selected: TabId = TABS.some((t) => t.id === tab) ? (tab as TabId) : 'keys';
  const panel = (): React.ReactNode => {
    switch (selected) {
      case 'keys':
        return <ApiKeys projectId={projectId} org={org} />;
      case 'evaluators':
        return <Evaluators projectId={projectId} org={org} />;
      case 'connections':
        return <LlmConnections projectId={projectId} org={org} />;
      case 'models':
        return <Models projectId={projectId} org={org} />;
      case 'scores':
        return <ScoreConfigs projectId={projectId} org={org} />;
      case 'members':
        return org ? <Members org={org} /> : null;
      case 'usage':
        return org ? <Usage org={org} /> : null;
      case 'audit':
        return org ? <AuditLog org={org} /> : null;
    }
  };
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings{project ? ` · ${project.name}` : ''}</h1>
      <TabList
        label="Settings"
        tabs={TABS}
        selected={selected}
        onSelect={(id) => void navigate(`/p/${projectId}/settings/${id}`, { replace: true })}
      />
      <TabPanel id={selected}>{panel()}</TabPanel>
    </section>
  );
}
