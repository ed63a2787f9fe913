import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import type { FilterValueField as PickerField } from '../../../../libs/domain/src/reads/filter-values';
import { Combobox } from '../components/Combobox';
import { formatCost, formatCount, formatMs, formatScore, formatTime, preview } from '../lib/format';
import { SessionLink, UserLink } from '../lib/group-links';
import { useCurrentProject } from '../lib/projects';
import { type Outputs, errorMessage, rpc } from '../rpc';

type TraceRow = Outputs['trace']['list']['data'][number];


/** The filters picked from the project's known values (`trace.filterValues`), in the URL under these keys. */
const PICKER_FILTERS: readonly { key: PickerField; label: string; list?: boolean }[] = [
  { key: 'name', label: 'Name' },
  { key: 'spanType', label: 'Span type' },
  { key: 'operation', label: 'Operation' },
  { key: 'model', label: 'Model' },
  { key: 'userId', label: 'User' },
  { key: 'sessionId', label: 'Session' },
  { key: 'environment', label: 'Environment' },
  { key: 'tags', label: 'Tags (all of, comma-separated)', list: true },
];
const PICKER_VALUES = 20;
const ROW_HEIGHT = 40;
const PAGE = 50;

/** The filters live in the URL, so a filtered list can be shared and survives a reload. */
function filtersFrom(params: URLSearchParams) {
  const text = (k: string) => params.get(k) || undefined;
  const num = (k: string) => (params.get(k) ? Number(params.get(k)) : undefined);
  const time = (k: string) => (params.get(k) ? new Date(params.get(k) as string).toISOString() : undefined);
  return {
    name: text('name'),
    userId: text('userId'),
    sessionId: text('sessionId'),
    environment: text('environment'),
    spanType: text('spanType'),
    operation: text('operation'),
    model: text('model'),
    scoreName: text('scoreName'),
    tags: params.get('tags') ? (params.get('tags') as string).split(',').map((t) => t.trim()).filter(Boolean) : undefined,
    minScore: num('minScore'),
    maxScore: num('maxScore'),
    fromTimestamp: time('from'),
    toTimestamp: time('to'),
  };
}

/** A filter field offering the project's values that contain what is typed, in any case. */
function FilterPicker({ projectId, field, label, list, defaultValue }: { projectId: string; field: PickerField; label: string; list?: boolean; defaultValue: string }) {
  const [term, setTerm] = useState<string | null>(null);
  const values = useQuery({
    queryKey: ['filterValues', projectId, field, term],
    queryFn: () => rpc.trace.filterValues.query({ projectId, field, prefix: term ?? '', limit: PICKER_VALUES } as { projectId: string }),
    enabled: term !== null,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
  return <Combobox name={field} label={label} list={list} defaultValue={defaultValue} options={values.data?.data ?? []} loading={values.isFetching} onSearch={setTerm} />;
}

function Filters({ projectId }: { projectId: string }) {
  const [params, setParams] = useSearchParams();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [key, value] of new FormData(e.currentTarget)) if (String(value).trim()) next.set(key, String(value).trim());
    setParams(next);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Trace filters" key={params.toString()}>
      {PICKER_FILTERS.map(({ key, label, list }) => (
        <FilterPicker key={key} projectId={projectId} field={key} label={label} list={list} defaultValue={params.get(key) ?? ''} />
      ))}
      <label>
        Score name
        <input name="scoreName" defaultValue={params.get('scoreName') ?? ''} />
      </label>
      <label>
        Min score
        <input name="minScore" type="number" step="any" defaultValue={params.get('minScore') ?? ''} />
      </label>
      <label>
        Max score
        <input name="maxScore" type="number" step="any" defaultValue={params.get('maxScore') ?? ''} />
      </label>
      <label>
        From
        <input name="from" type="datetime-local" defaultValue={params.get('from') ?? ''} />
      </label>
      <label>
        To
        <input name="to" type="datetime-local" defaultValue={params.get('to') ?? ''} />
      </label>
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => setParams(new URLSearchParams())}>
          Clear
        </button>
      </div>
    </form>
  );
}

type ListInput = Parameters<typeof rpc.trace.list.query>[0];
/**
 * The input as sent. The router infers its type from the DTO after validation, where a time is
 * already epoch milliseconds; on the wire it is the ISO string the DTO reads (CONTRACT).
 */
const listInput = (input: Omit<ListInput, 'fromTimestamp' | 'toTimestamp'> & { fromTimestamp?: string; toTimestamp?: string }) => input as unknown as ListInput;
type ScoreSummary = { name: string | null; source: string | null; value: number | null; count: number };

const COLUMNS = ['Time', 'Name', 'Input', 'Output', 'Latency', 'Tokens', 'Cost', 'Tags', 'User / session', 'Spans', 'Scores'];

function Row({ projectId, trace, onOpen }: { projectId: string; trace: TraceRow; onOpen: () => void }) {
  return (
    <>
      <span role="cell" className="trace-time">
        {formatTime(trace.timestamp)}
      </span>
      <span role="cell" className="strong trace-name" title={trace.name ?? undefined}>
        {trace.name ?? <em>unnamed</em>}
      </span>
      <span role="cell" className="preview">
        {preview(trace.input, 60)}
      </span>
      <span role="cell" className="preview">
        {preview(trace.output, 60)}
      </span>
      <span role="cell" className="num">
        {formatMs(trace.latencyMs)}
      </span>
      <span role="cell" className="num">
        {formatCount(trace.totalTokens)}
      </span>
      <span role="cell" className="num">
        {formatCost(trace.totalCost)}
      </span>
      <span role="cell">
        {trace.tags.map((t) => (
          <span key={t} className="tag">
            {t}
          </span>
        ))}
      </span>
      <span role="cell" className="group-cells">
        {trace.userId && <UserLink projectId={projectId} id={trace.userId} inRow />}
        {trace.sessionId && <SessionLink projectId={projectId} id={trace.sessionId} inRow />}
      </span>
      <span role="cell" className="num">
        {trace.spanCount}
      </span>
      <span role="cell">
        {(trace.scores as ScoreSummary[]).map((s) => (
          <span key={`${s.name}-${s.source}`} className="score" title={`${s.count} score(s), source ${s.source}`}>
            {s.name}: {formatScore(s.value)}
          </span>
        ))}
        <button type="button" className="visually-hidden-focusable" onClick={onOpen}>
          Open trace {trace.name ?? trace.id}
        </button>
      </span>
    </>
  );
}

export function TracesPage() {
  const { projectId, project } = useCurrentProject();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const filters = useMemo(() => filtersFrom(params), [params]);
  const list = useInfiniteQuery({
    queryKey: ['traces', projectId, filters],
    queryFn: ({ pageParam }) => rpc.trace.list.query(listInput({ projectId, limit: PAGE, ...filters, cursor: pageParam })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.nextCursor ?? undefined,
  });
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.data) ?? [], [list.data]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = virtual.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;

  // Scrolled near the end: the next page, from the server (its filters, its cursor).
  useEffect(() => {
    if (lastIndex >= rows.length - 10 && list.hasNextPage && !list.isFetchingNextPage) void list.fetchNextPage();
  }, [lastIndex, rows.length, list]);

  const open = (id: string) => void navigate(`/p/${projectId}/traces/${encodeURIComponent(id)}`);
  const refresh = () => {
    // Back to the first page: traces that arrived since are at the top.
    scroller.current?.scrollTo({ top: 0 });
    void list.refetch();
  };

  return (
    <section aria-labelledby="traces-title" className="traces">
      <div className="page-head">
        <h1 id="traces-title">Traces{project ? ` · ${project.name}` : ''}</h1>
        <button type="button" onClick={refresh} disabled={list.isFetching}>
          {list.isFetching && !list.isFetchingNextPage ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <Filters projectId={projectId} />
      {list.error && <p role="alert">{errorMessage(list.error)}</p>}
      <p className="muted" role="status">
        {list.isLoading ? 'Loading traces…' : `${rows.length.toLocaleString('en-US')} trace${rows.length === 1 ? '' : 's'} shown${list.hasNextPage ? ', more below' : ''}`}
      </p>
      <div role="table" aria-label="Traces" aria-rowcount={rows.length + 1} className="grid-table">
        <div role="rowgroup">
          <div role="row" className="grid-row head" aria-rowindex={1}>
            {COLUMNS.map((c) => (
              <span role="columnheader" key={c}>
                {c}
              </span>
            ))}
          </div>
        </div>
        <div role="rowgroup" ref={scroller} className="grid-body" data-testid="trace-rows">
          <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
            {items.map((item) => {
              const trace = rows[item.index] as TraceRow;
              return (
                <div
                  key={trace.id}
                  role="row"
                  aria-rowindex={item.index + 2}
                  className="grid-row"
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  onClick={() => open(trace.id)}
                  data-trace-id={trace.id}
                >
                  <Row projectId={projectId} trace={trace} onOpen={() => open(trace.id)} />
                </div>
              );
            })}
          </div>
        </div>
      </div>
      {!list.isLoading && rows.length === 0 && <p>No traces match. Ingest some with an API key (Settings → API keys), or clear the filters.</p>}
    </section>
  );
}
