import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { SessionLink, UserLink } from '../lib/group-links';
import { CopyableId } from '../components/CopyButton';
import { AddToQueue } from '../components/AddToQueue';
import { AddToDataset } from '../components/DatasetItems';
import { ScoreControl, ScoreTable } from '../components/HandScores';
import { JsonView } from '../components/JsonView';
import { InputOutput } from '../components/conversation/InputOutput';
import { formatCompactCount, formatCost, formatCount, formatMs, formatTime } from '../lib/format';
import { type SubtreeTotals, subtreeTotals } from '../lib/subtree-totals';
import { costSourceText, usageCostRows } from '../lib/usage-costs';
import { type WaterfallRow, buildWaterfall } from '../lib/waterfall';
import { type Span, type Trace, useLaterSpans, useTrace, useWholeSpan } from '../data/traces';
import { errorMessage } from '../rpc';

type Score = Trace['scores'][number];

/** Every row of the tree has this height, so the virtualizer places rows without measuring them. */
const ROW_HEIGHT = 28;
/** Rows from the end of what is loaded at which the next page of spans is asked for. */
const LOAD_AHEAD_ROWS = 200;

const isError = (span: Span) => span.level === 'ERROR';
/** One colour class per span type; types we do not know share one. */
const KNOWN_TYPES = new Set(['LLM', 'TOOL', 'RETRIEVER', 'CHAIN', 'AGENT', 'EMBEDDING', 'EVENT', 'SPAN']);
const typeClass = (type: string | null) => `type-${type && KNOWN_TYPES.has(type) ? type.toLowerCase() : 'other'}`;

/** Tokens and cost per usage type; a type the price table could not price says so, its tokens not in the cost. */
function UsageCostTable({ span }: { span: Span }) {
  const rows = usageCostRows(span);
  if (!rows.length) return null;
  return (
    <table className="plain" data-testid="span-usage-costs">
      <caption>Usage and cost by type</caption>
      <thead>
        <tr>
          <th scope="col">Type</th>
          <th scope="col" className="num">
            Tokens
          </th>
          <th scope="col" className="num">
            Cost
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.type}>
            <td>{r.type}</td>
            <td className="num">{formatCount(r.tokens)}</td>
            <td className="num">{r.unpriced ? <span className="muted">no price</span> : formatCost(r.cost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function SpanDetails({ projectId, span, scores }: { projectId: string; span: Span; scores: Score[] }) {
  const costSource = costSourceText(span);
  return (
    <section aria-labelledby="span-title" className="span-details">
      <h2 id="span-title">
        <span className={`type-badge ${typeClass(span.type)}`}>{span.type ?? 'SPAN'}</span>
        {span.operation && (
          <span className="operation-badge" data-testid="span-operation">
            {span.operation}
          </span>
        )}{' '}
        {span.name ?? span.id}
        {isError(span) && <span className="error-badge">error</span>}
      </h2>
      <dl className="facts">
        <div>
          <dt>Model</dt>
          <dd data-testid="span-model">{span.model ?? '–'}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd data-testid="span-tokens">
            {formatCount(span.promptTokens)} prompt · {formatCount(span.completionTokens)} completion · {formatCount(span.totalTokens)}{' '}
            total
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>
            {formatCost(span.cost)}
            {costSource && (
              <span className="muted" data-testid="span-cost-source">
                {' '}
                · {costSource}
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>Start</dt>
          <dd>{formatTime(span.startTime)}</dd>
        </div>
        <div>
          <dt>Level</dt>
          <dd>{span.level ?? '–'}</dd>
        </div>
        {span.statusMessage && (
          <div>
            <dt>Status message</dt>
            <dd>{span.statusMessage}</dd>
          </div>
        )}
        <CopyableId label="Span id" value={span.id} />
        <CopyableId label="OTel span id" value={span.otelSpanId} />
      </dl>
      <UsageCostTable span={span} />
      <InputOutput input={span.input} output={span.output} />
      {span.modelParameters !== null && span.modelParameters !== undefined && (
        <>
          <h3>Model parameters</h3>
          <JsonView value={span.modelParameters} label="Model parameters" />
        </>
      )}
      <h3>Attributes</h3>
      <JsonView value={span.attributes && Object.keys(span.attributes).length ? span.attributes : null} label="Attributes" />
      <h3>Metadata</h3>
      <JsonView value={span.metadata && Object.keys(span.metadata).length ? span.metadata : null} label="Metadata" />
      <h3>Scores on this span</h3>
      <ScoreTable projectId={projectId} scores={scores} caption="Span scores" compact />
      <ScoreControl projectId={projectId} traceId={span.traceId} spanId={span.id} label={`the span ${span.name ?? span.id}`} />
      <AddToQueue
        projectId={projectId}
        label="Add the span to an annotation queue"
        choices={[{ label: 'Add span to queue', addition: { items: [{ traceId: span.traceId, spanId: span.id }] } }]}
      />
      <AddToDataset
        projectId={projectId}
        source={{ traceId: span.traceId, spanId: span.id, input: span.input, output: span.output }}
        label={`the span ${span.name ?? span.id}`}
      />
    </section>
  );
}

/** The trace's own input, output and metadata, which its spans' need not repeat. */
/**
 * A row's subtree tokens and cost, short; the title gives them whole. While pages are still
 * unloaded they are totals of the loaded spans, so they are marked as a lower bound.
 */
function RowTotals({ totals, complete }: { totals: SubtreeTotals; complete: boolean }) {
  const parts = [
    totals.tokens === null ? null : `${formatCompactCount(totals.tokens)} tok`,
    totals.cost === null ? null : formatCost(totals.cost),
  ].filter(Boolean);
  const whole = [
    totals.tokens === null ? null : `${formatCount(totals.tokens)} tokens`,
    totals.cost === null ? null : formatCost(totals.cost),
  ]
    .filter(Boolean)
    .join(' · ');
  const title = `${whole || 'No tokens or cost'} in this span and the spans below it${complete ? '' : ' (of loaded spans)'}`;
  return (
    <span className="wf-totals" data-testid="span-subtree-totals" title={title}>
      {parts.length ? `${complete ? '' : '≥ '}${parts.join(' · ')}` : '–'}
    </span>
  );
}

function TraceIO({ projectId, trace }: { projectId: string; trace: Trace }) {
  return (
    <section aria-labelledby="trace-io-title" className="trace-io">
      <h2 id="trace-io-title">Trace input and output</h2>
      <InputOutput input={trace.input} output={trace.output} scope="Trace" />
      <h3>Metadata</h3>
      <JsonView value={Object.keys(trace.metadata).length ? trace.metadata : null} label="Trace metadata" />
      <AddToDataset projectId={projectId} source={{ traceId: trace.id, input: trace.input, output: trace.output }} label="the trace" />
    </section>
  );
}

/**
 * The spans of a trace: the first page comes with the trace (`trace.get`), later pages
 * (`trace.spans`) only once the tree is scrolled near the end of what is loaded, so a trace of
 * 100,000 spans opens with one page.
 */
function useTraceSpans(projectId: string, traceId: string, trace: Trace | undefined) {
  const [wanted, setWanted] = useState(false);
  const later = useLaterSpans(projectId, traceId, trace?.nextSpansCursor, wanted);
  const spans = useMemo<Span[]>(() => [...(trace?.spans ?? []), ...(later.data?.pages.flatMap((p) => p.data) ?? [])], [trace, later.data]);
  const hasMore = later.data ? later.hasNextPage : !!trace?.nextSpansCursor;
  const loadMore = () => {
    if (!hasMore || later.isFetching) return;
    if (!wanted) setWanted(true);
    else void later.fetchNextPage();
  };
  return { spans, hasMore, loadMore, loading: later.isFetching, error: later.error };
}

/**
 * The span tree as a WAI-ARIA tree, virtualized: only the rows in view (and a few around them)
 * are in the DOM. One tab stop (the selected row); arrow keys, Home and End move the selection,
 * scrolling it into view first, and reaching the end loads the next page.
 */
function SpanTree({
  rows,
  totals,
  complete,
  selectedId,
  onSelect,
  onNearEnd,
}: {
  rows: WaterfallRow<Span>[];
  totals: SubtreeTotals[];
  complete: boolean;
  selectedId: string | undefined;
  onSelect: (id: string) => void;
  onNearEnd: () => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });
  const items = virtual.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;
  const [focusId, setFocusId] = useState<string | null>(null);

  useEffect(() => {
    if (rows.length && lastIndex >= rows.length - LOAD_AHEAD_ROWS) onNearEnd();
  }, [lastIndex, rows.length, onNearEnd]);
  // A row moved to by key is focused once it is drawn.
  useEffect(() => {
    if (focusId) document.getElementById(`span-${focusId}`)?.focus();
  }, [focusId, items]);

  const move = (e: KeyboardEvent, index: number) => {
    const target =
      e.key === 'ArrowDown'
        ? index + 1
        : e.key === 'ArrowUp'
          ? index - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? rows.length - 1
              : e.key === 'PageDown'
                ? index + 20
                : e.key === 'PageUp'
                  ? index - 20
                  : null;
    if (target === null) return;
    e.preventDefault();
    const nextIndex = Math.min(rows.length - 1, Math.max(0, target));
    const next = rows[nextIndex];
    if (!next) return;
    onSelect(next.span.id);
    virtual.scrollToIndex(nextIndex);
    setFocusId(next.span.id);
  };

  return (
    <div ref={scroller} className="wf-scroll" data-testid="span-tree-scroll">
      <ul role="tree" aria-label="Span tree" style={{ height: virtual.getTotalSize() }}>
        {items.map((item) => {
          const row = rows[item.index];
          return (
            <li
              key={row.span.id}
              id={`span-${row.span.id}`}
              role="treeitem"
              aria-level={row.depth + 1}
              aria-selected={row.span.id === selectedId}
              tabIndex={row.span.id === selectedId ? 0 : -1}
              className={`wf-row${isError(row.span) ? ' wf-error' : ''}`}
              style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
              onClick={() => onSelect(row.span.id)}
              onKeyDown={(e) => move(e, item.index)}
            >
              <span className="wf-name" style={{ paddingLeft: `${Math.min(row.depth, 40) * 14}px` }}>
                {isError(row.span) && (
                  <span className="error-mark" aria-label="error">
                    ⚠{' '}
                  </span>
                )}
                <span className={`type-dot ${typeClass(row.span.type)}`} aria-hidden="true" />
                <span className="wf-label">{row.span.name ?? row.span.id}</span>{' '}
                <small className="wf-kind">{[row.span.type, row.span.operation].filter(Boolean).join(' · ')}</small>
                {row.span.model && (
                  <span className="model-chip" data-testid="span-row-model">
                    {row.span.model}
                  </span>
                )}
              </span>
              <span className="wf-track" aria-hidden="true">
                <span className={`wf-bar ${typeClass(row.span.type)}`} style={{ left: `${row.leftPct}%`, width: `${row.widthPct}%` }} />
              </span>
              <RowTotals totals={totals[item.index]} complete={complete} />
              <span className="wf-time">
                +{formatMs(row.offsetMs)} · {row.durationMs === null ? 'open' : formatMs(row.durationMs)}
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

export function TracePage() {
  const { projectId = '', traceId = '' } = useParams();
  const { data: trace, error, isLoading } = useTrace(projectId, traceId);
  const spans = useTraceSpans(projectId, traceId, trace);
  const rows = useMemo(() => buildWaterfall(spans.spans, { extentMs: trace?.latencyMs }), [spans.spans, trace?.latencyMs]);
  const totals = useMemo(() => subtreeTotals(rows), [rows]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const shown = (selectedId !== null ? spans.spans.find((s) => s.id === selectedId) : undefined) ?? rows[0]?.span ?? null;
  // A span whose large fields a page cut is read whole for its details.
  const whole = useWholeSpan(projectId, traceId, shown);
  const selected = shown?.truncated ? (whole.data ?? shown) : shown;
  const { loadMore } = spans;
  const loadMoreRef = useRef(loadMore);
  loadMoreRef.current = loadMore;
  const onNearEnd = useMemo(() => () => loadMoreRef.current(), []);

  if (isLoading) return <p role="status">Loading the trace…</p>;
  if (error || !trace) return <p role="alert">{error ? errorMessage(error) : 'No such trace.'}</p>;

  return (
    <article aria-labelledby="trace-title" className="trace">
      <p>
        <Link to={`/p/${projectId}/traces`}>← All traces</Link>
      </p>
      <h1 id="trace-title">{trace.name ?? 'Unnamed trace'}</h1>
      <dl className="facts">
        <div>
          <dt>Time</dt>
          <dd>{formatTime(trace.timestamp)}</dd>
        </div>
        <div>
          <dt>Latency</dt>
          <dd>{formatMs(trace.latencyMs)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd data-testid="trace-tokens">{formatCount(trace.totalTokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-testid="trace-cost">{formatCost(trace.totalCost)}</dd>
        </div>
        <div>
          <dt>User</dt>
          <dd>
            <UserLink projectId={projectId} id={trace.userId} />
          </dd>
        </div>
        <div>
          <dt>Session</dt>
          <dd>
            <SessionLink projectId={projectId} id={trace.sessionId} />
          </dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>{trace.tags.join(', ') || '–'}</dd>
        </div>
        <div>
          <dt>Environment</dt>
          <dd data-testid="trace-environment">{trace.environment ?? '–'}</dd>
        </div>
        <div>
          <dt>Release</dt>
          <dd data-testid="trace-release">{trace.release ?? '–'}</dd>
        </div>
        {trace.version && (
          <div>
            <dt>Version</dt>
            <dd>{trace.version}</dd>
          </div>
        )}
        <CopyableId label="Trace id" value={trace.id} />
        <CopyableId label="OTel trace id" value={trace.otelTraceId} />
        <CopyableId label="External id" value={trace.externalId} />
      </dl>
      <TraceIO projectId={projectId} trace={trace} />
      <div className="trace-body">
        <section aria-labelledby="tree-title" className="waterfall">
          <h2 id="tree-title">
            Spans (
            {rows.length < trace.spanCount
              ? `${formatCount(rows.length)} of ${formatCount(trace.spanCount)} loaded`
              : formatCount(rows.length)}
            )
          </h2>
          <SpanTree
            rows={rows}
            totals={totals}
            complete={!spans.hasMore}
            selectedId={selected?.id}
            onSelect={setSelectedId}
            onNearEnd={onNearEnd}
          />
          <p className="muted" role="status" data-testid="span-pages">
            {spans.loading ? 'Loading more spans…' : spans.hasMore ? 'More spans load as you scroll.' : ''}
            {spans.error ? ` ${errorMessage(spans.error)}` : ''}
          </p>
        </section>
        {selected && <SpanDetails projectId={projectId} span={selected} scores={trace.scores.filter((c) => c.spanId === selected.id)} />}
      </div>
      <section aria-labelledby="scores-title">
        <h2 id="scores-title">Scores</h2>
        <ScoreTable projectId={projectId} scores={trace.scores} caption="Trace scores" />
        <ScoreControl projectId={projectId} traceId={trace.id} label="the trace" />
        <AddToQueue
          projectId={projectId}
          label="Add the trace to an annotation queue"
          choices={[{ label: 'Add trace to queue', addition: { items: [{ traceId: trace.id }] } }]}
        />
      </section>
    </article>
  );
}
