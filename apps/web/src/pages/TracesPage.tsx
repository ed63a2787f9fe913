import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import type { FilterValueField as PickerField } from '@app/domain/reads/filter-values';
import { AddToQueue } from '../components/AddToQueue';
import { ErrorAlert } from '../components/ErrorAlert';
import { FilterForm, FilterPicker, FilterText, FilterTimeRange } from '../components/filters/FilterForm';
import { useCurrentProject } from '../data/projects';
import { type ExportFormat, type TraceFilters, type TraceRow, exportTraces, useTraceList } from '../data/traces';
import { formatCost, formatCount, formatMs, formatScore, formatTime } from '../lib/format';
import { type ScoreSummary, SessionLink, UserLink } from '../lib/group-links';
import { messagePreview } from '../lib/message-preview';
import { urlFilterReaders } from '../lib/url-filters';

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
const ROW_HEIGHT = 40;

/** The filters live in the URL, so a filtered list can be shared and survives a reload. */
function filtersFrom(params: URLSearchParams) {
  const { text, num, time } = urlFilterReaders(params);
  return {
    name: text('name'),
    userId: text('userId'),
    sessionId: text('sessionId'),
    environment: text('environment'),
    spanType: text('spanType'),
    operation: text('operation'),
    model: text('model'),
    scoreName: text('scoreName'),
    tags: params.get('tags')
      ? (params.get('tags') as string)
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : undefined,
    minScore: num('minScore'),
    maxScore: num('maxScore'),
    fromTimestamp: time('from'),
    toTimestamp: time('to'),
  };
}

function Filters({ projectId }: { projectId: string }) {
  return (
    <FilterForm label="Trace filters">
      {PICKER_FILTERS.map(({ key, label, list }) => (
        <FilterPicker key={key} projectId={projectId} field={key} label={label} list={list} />
      ))}
      <FilterText name="scoreName" label="Score name" />
      <FilterText name="minScore" label="Min score" type="number" step="any" />
      <FilterText name="maxScore" label="Max score" type="number" step="any" />
      <FilterTimeRange fromLabel="From" toLabel="To" />
    </FilterForm>
  );
}

// What was asked above what was answered: one column of two lines reads longer at 1024 px than two narrow ones.
const COLUMNS = ['Time', 'Name', 'Input / output', 'Latency', 'Tokens', 'Cost', 'Tags', 'User / session', 'Spans', 'Scores'];

function Row({
  projectId,
  trace,
  onOpen,
  selected,
  onSelect,
}: {
  projectId: string;
  trace: TraceRow;
  onOpen: () => void;
  selected: boolean;
  onSelect: (on: boolean) => void;
}) {
  return (
    <>
      <span role="cell" onClick={(e) => e.stopPropagation()}>
        <input
          type="checkbox"
          aria-label={`Select trace ${trace.name ?? trace.id}`}
          checked={selected}
          onChange={(e) => onSelect(e.target.checked)}
        />
      </span>
      <span role="cell" className="trace-time">
        {formatTime(trace.timestamp)}
      </span>
      <span role="cell" className="strong trace-name" title={trace.name ?? undefined}>
        {trace.name ?? <em>unnamed</em>}
      </span>
      <span role="cell" className="preview two-lines">
        <span data-testid="row-input">{messagePreview(trace.input, 'input', 80)}</span>
        <span data-testid="row-output">{messagePreview(trace.output, 'output', 80)}</span>
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
      <span role="cell" className="two-lines">
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

/** Downloads every trace the filters match, as JSONL or CSV (docs/reading.md "Exports"). */
function ExportButtons({ projectId, filters }: { projectId: string; filters: TraceFilters }) {
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = (format: ExportFormat) => {
    setBusy(format);
    setError(null);
    exportTraces(projectId, filters, format)
      .catch(setError)
      .finally(() => setBusy(null));
  };
  return (
    <>
      <div role="group" aria-label="Export the matching traces" className="export-buttons">
        {(['jsonl', 'csv'] as const).map((format) => (
          <button key={format} type="button" onClick={() => run(format)} disabled={busy !== null}>
            {busy === format ? 'Exporting…' : `Export ${format.toUpperCase()}`}
          </button>
        ))}
      </div>
      {error ? <ErrorAlert error={error} /> : null}
    </>
  );
}

export function TracesPage() {
  const { projectId, project } = useCurrentProject();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const filters = useMemo(() => filtersFrom(params), [params]);
  const list = useTraceList(projectId, filters);
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.data) ?? [], [list.data]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtual.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;

  // Scrolled near the end: the next page, from the server (its filters, its cursor).
  useEffect(() => {
    if (lastIndex >= rows.length - 10 && list.hasNextPage && !list.isFetchingNextPage) void list.fetchNextPage();
  }, [lastIndex, rows.length, list]);

  const open = (id: string) => void navigate(`/p/${projectId}/traces/${encodeURIComponent(id)}`);
  // Traces picked for an annotation queue; a change of filters starts a new selection.
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setSelected(new Set()), [filters]);
  const select = (id: string, on: boolean) =>
    setSelected((now) => {
      const next = new Set(now);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
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
        <ExportButtons projectId={projectId} filters={filters} />
      </div>
      <Filters projectId={projectId} />
      <AddToQueue
        projectId={projectId}
        choices={[
          {
            label: `Add ${selected.size} selected`,
            addition: { items: [...selected].map((traceId) => ({ traceId })) },
            disabled: selected.size === 0,
          },
          { label: 'Add all matching the filters', addition: { filter: filters }, disabled: rows.length === 0 },
        ]}
      />
      <ErrorAlert error={list.error} />
      <p className="muted" role="status">
        {list.isLoading
          ? 'Loading traces…'
          : `${rows.length.toLocaleString('en-US')} trace${rows.length === 1 ? '' : 's'} shown${list.hasNextPage ? ', more below' : ''}`}
      </p>
      <div role="table" aria-label="Traces" aria-rowcount={rows.length + 1} className="grid-table">
        <div role="rowgroup">
          <div role="row" className="grid-row head" aria-rowindex={1}>
            <span role="columnheader">
              <span className="visually-hidden">Selected</span>
            </span>
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
                  <Row
                    projectId={projectId}
                    trace={trace}
                    onOpen={() => open(trace.id)}
                    selected={selected.has(trace.id)}
                    onSelect={(on) => select(trace.id, on)}
                  />
                </div>
              );
            })}
          </div>
        </div>
      </div>
      {!list.isLoading && rows.length === 0 && (
        <p>No traces match. Ingest some with an API key (Settings → API keys), or clear the filters.</p>
      )}
    </section>
  );
}
