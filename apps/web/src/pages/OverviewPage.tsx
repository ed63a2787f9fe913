import { useMemo, useState } from 'react';
import { TimeChart } from '../components/Chart';
import { formatCost, formatCount, formatModelCost, formatMs, formatScore, formatTime } from '../lib/format';
import { type Overview, RANGES, totals } from '../lib/overview';
import { ErrorAlert } from '../components/ErrorAlert';
import { useCurrentProject } from '../data/projects';
import { useOverview } from '../data/stats';
import { useUnpricedUsage } from '../data/costs';
import type { Outputs } from '../rpc';

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

/** Spans per operation, each bar its share of the range's spans. */
function Operations({ overview }: { overview: Overview }) {
  const spans = overview.operations.reduce((n, o) => n + o.calls, 0);
  return (
    <table className="plain" data-testid="operations">
      <caption>Spans by operation</caption>
      <thead>
        <tr>
          <th scope="col">Operation</th>
          <th scope="col">Calls</th>
          <th scope="col">Errors</th>
          <th scope="col">Tokens</th>
          <th scope="col">Cost</th>
          <th scope="col">p50</th>
          <th scope="col">p95</th>
        </tr>
      </thead>
      <tbody>
        {overview.operations.map((o) => (
          <tr key={o.operation ?? ''}>
            <td>{o.operation ?? <em>none</em>}</td>
            <td className="num">
              <span className="meter share" aria-hidden="true">
                <span style={{ width: `${spans ? (o.calls / spans) * 100 : 0}%` }} />
              </span>
              {formatCount(o.calls)}
            </td>
            <td className="num">{formatCount(o.errors)}</td>
            <td className="num">{formatCount(o.tokens)}</td>
            <td className="num">{formatCost(o.costUsd)}</td>
            <td className="num">{formatMs(o.latencyP50Ms)}</td>
            <td className="num">{formatMs(o.latencyP95Ms)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type UnpricedUsage = Outputs['cost']['unpriced'];

/**
 * The models and usage types the price table could not price in the range: their tokens are
 * left out of every cost above, so a team sees which prices to add.
 */
function Unpriced({ usage }: { usage: UnpricedUsage | undefined }) {
  return (
    <table className="plain" data-testid="unpriced-usage">
      <caption>Usage without a price</caption>
      <thead>
        <tr>
          <th scope="col">Model</th>
          <th scope="col">Usage types</th>
          <th scope="col">Spans</th>
          <th scope="col">First seen</th>
          <th scope="col">Last seen</th>
        </tr>
      </thead>
      <tbody>
        {usage?.models.length === 0 && (
          <tr>
            <td colSpan={5} className="muted">
              Every model&apos;s usage in this range has a price (or a cost sent by the client).
            </td>
          </tr>
        )}
        {usage?.models.map((m) => (
          <tr key={m.model}>
            <td>{m.model || <em>none</em>}</td>
            <td>{m.usageTypes.map((t) => `${t.type} (${formatCount(t.spans)})`).join(', ')}</td>
            <td className="num">{formatCount(m.spans)}</td>
            <td>{formatTime(m.firstSeen)}</td>
            <td>{formatTime(m.lastSeen)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Charts({ overview }: { overview: Overview }) {
  const times = useMemo(() => overview.series.map((p) => Date.parse(p.t)), [overview]);
  const volume = useMemo(
    () => [
      { label: 'Traces', values: overview.series.map((p) => p.traces), color: '#2563eb' },
      { label: 'Spans', values: overview.series.map((p) => p.spans), color: '#16a34a' },
    ],
    [overview],
  );
  const latency = useMemo(
    () => [
      { label: 'p50 ms', values: overview.series.map((p) => p.latencyP50Ms), color: '#7c3aed' },
      { label: 'p95 ms', values: overview.series.map((p) => p.latencyP95Ms), color: '#db2777' },
    ],
    [overview],
  );
  const cost = useMemo(() => [{ label: 'Cost USD', values: overview.series.map((p) => p.costUsd), color: '#ea580c' }], [overview]);
  const sum = totals(overview.series);
  const stepMs = overview.bucketSeconds * 1000;
  return (
    <>
      <dl className="kpis" aria-label="Totals for the range">
        <div>
          <dt>Traces</dt>
          <dd data-testid="kpi-traces">{formatCount(sum.traces)}</dd>
        </div>
        <div>
          <dt>Spans</dt>
          <dd data-testid="kpi-spans">{formatCount(sum.spans)}</dd>
        </div>
        <div>
          <dt title="Spans whose operation calls a model (chat, text_completion, generate_content), or of type LLM without an operation">
            LLM calls
          </dt>
          <dd data-testid="kpi-llm-calls">{formatCount(overview.llmCalls)}</dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd>{formatCount(sum.errors)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{formatCount(sum.tokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCost(sum.costUsd)}</dd>
        </div>
      </dl>
      <div className="chart-grid">
        <TimeChart title="Traces and spans over time" times={times} stepMs={stepMs} series={volume} bars />
        <TimeChart title="Latency p50 and p95" times={times} stepMs={stepMs} series={latency} unit="ms" />
        <TimeChart title="Cost over time" times={times} stepMs={stepMs} series={cost} unit="cost" />
      </div>
      <Operations overview={overview} />
      <div className="chart-grid">
        <table className="plain">
          <caption>Cost and tokens per model</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Calls</th>
              <th scope="col">Cost</th>
              <th scope="col">Prompt tokens</th>
              <th scope="col">Completion tokens</th>
              <th scope="col">p50</th>
              <th scope="col">p95</th>
            </tr>
          </thead>
          <tbody>
            {overview.models.map((m) => (
              <tr key={m.model}>
                <td>{m.model}</td>
                <td className="num">{formatCount(m.calls)}</td>
                <td
                  className="num"
                  title={
                    m.unpricedCalls
                      ? `${formatCount(m.unpricedCalls)} of ${formatCount(m.calls)} calls had usage without a price`
                      : undefined
                  }
                >
                  {formatModelCost(m)}
                </td>
                <td className="num">{formatCount(m.promptTokens)}</td>
                <td className="num">{formatCount(m.completionTokens)}</td>
                <td className="num">{formatMs(m.latencyP50Ms)}</td>
                <td className="num">{formatMs(m.latencyP95Ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table className="plain">
          <caption>Error rate by span type</caption>
          <thead>
            <tr>
              <th scope="col">Span type</th>
              <th scope="col">Calls</th>
              <th scope="col">Errors</th>
              <th scope="col">Error rate</th>
            </tr>
          </thead>
          <tbody>
            {overview.spanTypes.map((s) => (
              <tr key={s.spanType}>
                <td>{s.spanType}</td>
                <td className="num">{formatCount(s.calls)}</td>
                <td className="num">{formatCount(s.errors)}</td>
                <td className="num">
                  <span className="meter" aria-hidden="true">
                    <span style={{ width: `${Math.min(100, (s.errorRate ?? 0) * 100)}%` }} />
                  </span>
                  {pct(s.errorRate)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <table className="plain">
          <caption>Scores</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Source</th>
              <th scope="col">Count</th>
              <th scope="col">Mean</th>
              <th scope="col">Pass rate</th>
            </tr>
          </thead>
          <tbody>
            {overview.scores.map((s) => (
              <tr key={`${s.name}-${s.source}`}>
                <td>{s.name}</td>
                <td>{s.source}</td>
                <td className="num">{formatCount(s.count)}</td>
                <td className="num">{formatScore(s.mean)}</td>
                <td className="num">{pct(s.passRate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function OverviewPage() {
  const { projectId, project } = useCurrentProject();
  const [range, setRange] = useState<(typeof RANGES)[number]['id']>('24h');
  const [now, setNow] = useState(() => Date.now());
  const span = RANGES.find((r) => r.id === range)?.ms ?? 86_400_000;
  const { data, error, isLoading, isFetching } = useOverview(projectId, range, span, now);
  const unpriced = useUnpricedUsage(projectId, range, span, now);
  return (
    <section aria-labelledby="overview-title">
      <div className="page-head">
        <h1 id="overview-title">Overview{project ? ` · ${project.name}` : ''}</h1>
        <label>
          Time range{' '}
          <select value={range} onChange={(e) => setRange(e.target.value as typeof range)}>
            {RANGES.map((r) => (
              <option key={r.id} value={r.id}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => setNow(Date.now())} disabled={isFetching}>
          {isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      {isLoading && <p role="status">Loading…</p>}
      <ErrorAlert error={error} />
      {data && <Charts overview={data} />}
      <ErrorAlert error={unpriced.error} />
      {data && <Unpriced usage={unpriced.data} />}
    </section>
  );
}
