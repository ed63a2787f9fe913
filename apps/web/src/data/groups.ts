import { useQuery } from '@tanstack/react-query';
import { type Outputs, rpc } from '../rpc';
import { useCursorPages } from './cursor-pages';
import { keys } from './query-keys';

export type SessionRow = Outputs['traceSession']['list']['data'][number];
export type SessionTrace = Outputs['traceSession']['get']['traces'][number];
export type UserRow = Outputs['traceUser']['list']['data'][number];

/** A sessions or users list's filters as sent: text by the API's names, times as ISO strings. */
export type GroupFilters = Record<string, string | undefined>;

// The group routers' input types name projectId alone: the filters pass its DTO as sent and the group query reads them.
type GroupInput = { projectId: string };

/** The project's sessions, the most recently active first. */
export function useSessionList(projectId: string, filters: GroupFilters) {
  return useCursorPages(keys.sessions.list(projectId, filters), (cursor) =>
    rpc.traceSession.list.query({ projectId, ...filters, cursor } as GroupInput),
  );
}

/** A session's totals (on each page) and its traces in time order, a page at a time. */
export function useTraceSession(projectId: string, id: string) {
  return useCursorPages(keys.sessions.one(projectId, id), (cursor) => rpc.traceSession.get.query({ projectId, id, cursor } as GroupInput));
}

/** The project's users (the userId its traces carry), the most recently seen first. */
export function useUserList(projectId: string, filters: GroupFilters) {
  return useCursorPages(keys.users.list(projectId, filters), (cursor) =>
    rpc.traceUser.list.query({ projectId, ...filters, cursor } as GroupInput),
  );
}

/** A user's totals. */
export function useTraceUser(projectId: string, id: string) {
  return useQuery({ queryKey: keys.users.one(projectId, id), queryFn: () => rpc.traceUser.get.query({ projectId, id } as GroupInput) });
}
