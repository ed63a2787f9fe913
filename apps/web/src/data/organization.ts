import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Org } from './projects';
import { rpc } from '../rpc';
import { useCursorPages } from './cursor-pages';
import { keys } from './query-keys';

type Role = Org['role'];

export function useMembers(orgId: string) {
  return useQuery({ queryKey: keys.members(orgId), queryFn: () => rpc.member.list.query({ orgId }) });
}

/** Adding and removing members; each re-reads the list. */
export function useMemberChanges(orgId: string) {
  const queries = useQueryClient();
  const onSuccess = () => void queries.invalidateQueries({ queryKey: keys.members(orgId) });
  const add = useMutation({ mutationFn: (input: { email: string; role: Role }) => rpc.member.add.mutate({ orgId, ...input }), onSuccess });
  const remove = useMutation({ mutationFn: (userId: string) => rpc.member.remove.mutate({ orgId, userId }), onSuccess });
  return { add, remove };
}

/** This month's usage against the plan's limits. */
export function useUsage(orgId: string) {
  return useQuery({ queryKey: keys.usage.month(orgId), queryFn: () => rpc.usage.get.query({ orgId }) });
}

export function useDailyUsage(orgId: string) {
  return useQuery({ queryKey: keys.usage.daily(orgId), queryFn: () => rpc.usage.daily.query({ orgId }) });
}

/** The organization's audit log, newest first; a refusal (plan or role) is not retried. */
export function useAuditLog(orgId: string) {
  return useCursorPages(keys.auditLog(orgId), (cursor) => rpc.auditLog.list.query({ orgId, cursor }), { retry: false });
}
