import { useQuery } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import { keys } from './query-keys';

export type PromptVersion = Outputs['prompt']['versions']['data'][number];

export function usePrompts(projectId: string) {
  return useQuery({ queryKey: keys.prompts.all(projectId), queryFn: () => rpc.prompt.list.query({ projectId }) });
}

export function usePromptVersions(projectId: string, name: string) {
  return useQuery({ queryKey: keys.prompts.versions(projectId, name), queryFn: () => rpc.prompt.versions.query({ projectId, name }) });
}
