import { useQuery } from '@tanstack/react-query';
import { type KeyboardEvent, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { SessionLink, UserLink } from '../lib/group-links';
import { CopyableId } from '../components/CopyButton';
import { JsonView } from '../components/JsonView';
import { InputOutput } from '../components/conversation/InputOutput';
import { formatCost, formatCount, formatMs, formatScore, formatTime } from '../lib/format';
import { buildWaterfall } from '../lib/waterfall';
import { type Outputs, errorMessage, rpc } from '../rpc';

type Trace = Outputs['trace']['get'];
type Span = Trace['spans'][number];
type Score = Trace['scores'][number];

const isError = (span: Span) => span.level === 'ERROR';
/** One colour class per span type; types we do not know share one. */
const KNOWN_TYPES = new Set(['LLM', 'TOOL', 'RETRIEVER', 'CHAIN', 'AGENT', 'EMBEDDING', 'EVENT', 'SPAN']);
const typeClass = (type: string | null) => `type-${type && KNOWN_TYPES.has(type) ? type.toLowerCase() : 'other'}`;

function ScoreTable({ scores, caption }: { scores: Score[]; caption: string }) {
  if (!scores.length) return <p className="muted">No {caption.toLowerCase()}.</p>;
  return (
    <table className="plain">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Value</th>
          <th scope="col">Source</th>
          <th scope="col">Comment</th>
          <th scope="col">Time</th>
        </tr>
      </thead>
      <tbody>
        {scores.map((s) => (
          <tr key={s.id}>
            <td>{s.name}</td>
            <td className="num">{typeof s.value === 'number' ? formatScore(s.value) : String(s.value)}</td>
            <td>{s.source}</td>
            <td>{s.comment ?? ''}</td>
            <td>{formatTime(s.timestamp)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function SpanDetails({ span, scores }: { span: Span; scores: Score[] }) {
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
            {formatCount(span.promptTokens)} prompt · {formatCount(span.completionTokens)} completion · {formatCount(span.totalTokens)} total
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCost(span.cost)}</dd>
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
      <InputOutput input={span.input} output={span.output} />
      {span.modelParameters !== null && span.modelParameters !== undefined && (
        <>
          <h3>Model parameters</h3>
          <JsonView value={span.modelParameters} label="Model parameters" />
        </>
      )}
      <h3>Attributes</h3>
      <JsonView value={Object.keys(span.attributes).length ? span.attributes : null} label="Attributes" />
      <h3>Metadata</h3>
      <JsonView value={Object.keys(span.metadata).length ? span.metadata : null} label="Metadata" />
      <h3>Scores on this span</h3>
      <ScoreTable scores={scores} caption="Span scores" />
    </section>
  );
}

/** The trace's own input, output and metadata, which its spans' need not repeat. */
function TraceIO({ trace }: { trace: Trace }) {
  return (
    <section aria-labelledby="trace-io-title" className="trace-io">
      <h2 id="trace-io-title">Trace input and output</h2>
      <InputOutput input={trace.input} output={trace.output} scope="Trace" />
      <h3>Metadata</h3>
      <JsonView value={Object.keys(trace.metadata).length ? trace.metadata : null} label="Trace metadata" />
    </section>
  );
}

export function TracePage() {
  const { projectId = '', traceId = '' } = useParams();
  const { data: trace, error, isLoading } = useQuery({ queryKey: ['trace', projectId, traceId], queryFn: () => rpc.trace.get.query({ projectId, id: traceId }) });
  const rows = useMemo(() => buildWaterfall(trace?.spans ?? []), [trace]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const selected = rows.find((r) => r.span.id === selectedId)?.span ?? rows[0]?.span ?? null;

  if (isLoading) return <p role="status">Loading the trace…</p>;
  if (error || !trace) return <p role="alert">{error ? errorMessage(error) : 'No such trace.'}</p>;

  const move = (e: KeyboardEvent, index: number) => {
    const step = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = rows[Math.min(rows.length - 1, Math.max(0, index + step))];
    if (next) {
      setSelectedId(next.span.id);
      document.getElementById(`span-${next.span.id}`)?.focus();
    }
  };

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
          <dd>{formatCount(trace.totalTokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCost(trace.totalCost)}</dd>
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
      <TraceIO trace={trace} />
      <div className="trace-body">
        <section aria-labelledby="tree-title" className="waterfall">
          <h2 id="tree-title">Spans ({rows.length})</h2>
          <ul role="tree" aria-label="Span tree">
            {rows.map((row, i) => (
              <li
                key={row.span.id}
                id={`span-${row.span.id}`}
                role="treeitem"
                aria-level={row.depth + 1}
                aria-selected={row.span.id === selected?.id}
                tabIndex={row.span.id === selected?.id ? 0 : -1}
                className={`wf-row${isError(row.span) ? ' wf-error' : ''}`}
                onClick={() => setSelectedId(row.span.id)}
                onKeyDown={(e) => move(e, i)}
              >
                <span className="wf-name" style={{ paddingLeft: `${row.depth * 14}px` }}>
                  {isError(row.span) && (
                    <span className="error-mark" aria-label="error">
                      ⚠{' '}
                    </span>
                  )}
                  <span className={`type-dot ${typeClass(row.span.type)}`} aria-hidden="true" />
                  {row.span.name ?? row.span.id} <small>{[row.span.type, row.span.operation].filter(Boolean).join(' · ')}</small>
                </span>
                <span className="wf-track" aria-hidden="true">
                  <span className={`wf-bar ${typeClass(row.span.type)}`} style={{ left: `${row.leftPct}%`, width: `${row.widthPct}%` }} />
                </span>
                <span className="wf-time">
                  +{formatMs(row.offsetMs)} · {row.durationMs === null ? 'open' : formatMs(row.durationMs)}
                </span>
              </li>
            ))}
          </ul>
        </section>
        {selected && <SpanDetails span={selected} scores={trace.scores.filter((s) => s.spanId === selected.id)} />}
      </div>
      <section aria-labelledby="scores-title">
        <h2 id="scores-title">Scores</h2>
        <ScoreTable scores={trace.scores} caption="Trace scores" />
      </section>
    </article>
  );
}
