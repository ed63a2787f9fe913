import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FilterValueField } from '@app/domain/reads/filter-values';
import { type Outputs, authedFetch, rpc } from '../rpc';
import { useCursorPages } from './cursor-pages';
import { keys } from './query-keys';

export type TraceRow = Outputs['trace']['list']['data'][number];
export type Trace = Outputs['trace']['get'];
/** A span as a page of `trace.get` or `trace.spans` shows it (large fields may be cut: `truncated`). */
export type Span = Outputs['trace']['spans']['data'][number];

type ListInput = Parameters<typeof rpc.trace.list.query>[0];
/**
 * The trace list's filters as sent. The router infers its input type from the DTO after
 * validation, where a time is already epoch milliseconds; on the wire it is the ISO string the
 * DTO reads (CONTRACT).
 */
export type TraceFilters = Omit<ListInput, 'projectId' | 'cursor' | 'limit' | 'fromTimestamp' | 'toTimestamp'> & {
  fromTimestamp?: string;
  toTimestamp?: string;
};

const PAGE = 50;
const FILTER_VALUES = 20;

/** The project's traces, newest first, a page at a time. */
export function useTraceList(projectId: string, filters: TraceFilters) {
  return useCursorPages(keys.traces.list(projectId, filters), (cursor) =>
    rpc.trace.list.query({ projectId, limit: PAGE, ...filters, cursor } as unknown as ListInput),
  );
}

/** The project's known values of a filter that contain `term` in any case; nothing is read until a term is given. */
export function useFilterValues(projectId: string, field: FilterValueField, term: string | null) {
  return useQuery({
    queryKey: keys.traces.filterValues(projectId, field, term),
    queryFn: () => rpc.trace.filterValues.query({ projectId, field, prefix: term ?? '', limit: FILTER_VALUES } as { projectId: string }),
    enabled: term !== null,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

/** A trace with its first page of spans. */
export function useTrace(projectId: string, traceId: string) {
  return useQuery({ queryKey: keys.traces.one(projectId, traceId), queryFn: () => rpc.trace.get.query({ projectId, id: traceId }) });
}

/** The pages of spans after the trace's first, from its cursor; read only once `enabled`. */
export function useLaterSpans(projectId: string, traceId: string, from: string | null | undefined, enabled: boolean) {
  return useCursorPages(keys.traces.spans(projectId, traceId, from), (cursor) => rpc.trace.spans.query({ projectId, traceId, cursor }), {
    from: from ?? '',
    enabled: enabled && !!from,
  });
}

/** One span whole, for a span whose large fields a page cut. */
export function useWholeSpan(projectId: string, traceId: string, span: Span | null) {
  return useQuery({
    queryKey: keys.traces.span(projectId, traceId, span?.id),
    queryFn: () => rpc.trace.span.query({ projectId, traceId, spanId: span?.id ?? '' }),
    enabled: !!span?.truncated,
  });
}

/** What an export may be written as (GET /api/v1/traces/export). */
export type ExportFormat = 'jsonl' | 'csv';

/**
 * Every trace matching `filters` (not only the pages on screen), through the session's export
 * route (a download, which the RPC cannot answer), offered as a file. The browser holds the
 * file until it is saved: `spanlog traces export` streams a large one to disk instead.
 */
export async function exportTraces(projectId: string, filters: TraceFilters, format: ExportFormat): Promise<void> {
  const query = new URLSearchParams({ format });
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined || value === null || value === '') continue;
    query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const res = await authedFetch(`/api/v1/projects/${encodeURIComponent(projectId)}/traces/export?${query}`);
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `the export failed (${res.status})`);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `traces.${format}`;
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}
