import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { type Outputs, rpc } from '../rpc';
import { keys } from './query-keys';

export type Org = Outputs['organization']['list'][number];
export type Project = Outputs['project']['list'][number];
export interface OrgProjects {
  org: Org;
  projects: Project[];
}

/** Every organization of the user with its projects, for the switcher and the landing page. */
export function useOrgProjects() {
  return useQuery({
    queryKey: keys.orgProjects(),
    queryFn: async (): Promise<OrgProjects[]> => {
      const orgs = await rpc.organization.list.query();
      return Promise.all(orgs.map(async (org) => ({ org, projects: await rpc.project.list.query({ orgId: org.id }) })));
    },
  });
}

/** The project in the URL and its organization (null while loading or when it is not the user's). */
export function useCurrentProject(): { projectId: string; org: Org | null; project: Project | null } {
  const { projectId = '' } = useParams();
  const { data } = useOrgProjects();
  for (const entry of data ?? []) {
    const project = entry.projects.find((p) => p.id === projectId);
    if (project) return { projectId, org: entry.org, project };
  }
  return { projectId, org: null, project: null };
}

const LAST_PROJECT = 'spanlog.lastProject';
export const rememberProject = (id: string) => window.localStorage.setItem(LAST_PROJECT, id);
export const lastProject = () => window.localStorage.getItem(LAST_PROJECT);
