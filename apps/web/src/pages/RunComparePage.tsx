import { Link, useParams, useSearchParams } from 'react-router';
import { ErrorAlert } from '../components/ErrorAlert';
import { type RunComparison, type RunItemResult, useRunComparison } from '../data/datasets';
import { useCurrentProject } from '../data/projects';
import { formatCost, formatCount, formatMs, formatScore, preview } from '../lib/format';
import { bestScores, outputsDiffer, scoreNames } from '../lib/run-compare';

function Aggregates({ runs }: { runs: RunComparison['runs'] }) {
  const names = scoreNames(runs.map((r) => r.aggregates.scores));
  const best = bestScores(runs.map((r) => ({ scores: r.aggregates.scores.map((s) => ({ name: s.name, value: s.mean })) })));
  // The runs' own scores (`datasetRunId`), beside the means of their items'.
  const runNames = scoreNames(runs.map((r) => r.scores));
  const bestRun = bestScores(runs);
  return (
    <table className="plain">
      <caption>Aggregates</caption>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Items</th>
          {names.map((n) => (
            <th key={n} scope="col">
              {n} (mean)
            </th>
          ))}
          {runNames.map((n) => (
            <th key={`run-${n}`} scope="col">
              {n} (run)
            </th>
          ))}
          <th scope="col">Latency p50</th>
          <th scope="col">Latency p95</th>
          <th scope="col">Total cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run, i) => (
          <tr key={run.id}>
            <th scope="row">{run.name}</th>
            <td className="num">{formatCount(run.aggregates.count)}</td>
            {names.map((n) => {
              const mean = run.aggregates.scores.find((s) => s.name === n);
              return (
                <td key={n} className="num">
                  <Score value={mean ? mean.mean : null} best={best.get(n)?.has(i) ?? false} />
                </td>
              );
            })}
            {runNames.map((n) => (
              <td key={`run-${n}`} className="num">
                <Score value={run.scores.find((s) => s.name === n)?.value ?? null} best={bestRun.get(n)?.has(i) ?? false} />
              </td>
            ))}
            <td className="num">{formatMs(run.aggregates.latencyMs.p50)}</td>
            <td className="num">{formatMs(run.aggregates.latencyMs.p95)}</td>
            <td className="num">{formatCost(run.aggregates.totalCost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Score({ value, best }: { value: number | string | boolean | null; best: boolean }) {
  const text = typeof value === 'number' || value === null ? formatScore(value) : String(value);
  return best ? (
    <mark className="best" title="Best of the runs">
      {text} <span aria-hidden="true">★</span>
      <span className="visually-hidden"> (best)</span>
    </mark>
  ) : (
    <>{text}</>
  );
}

function ResultCell({
  projectId,
  runName,
  result,
  names,
  best,
  index,
  differs,
}: {
  projectId: string;
  runName: string;
  result: RunItemResult | null;
  names: string[];
  best: Map<string, Set<number>>;
  index: number;
  differs: boolean;
}) {
  if (!result)
    return (
      <td className="run-result" data-run={runName}>
        <span className="preview">not in this run</span>
      </td>
    );
  return (
    <td className={differs ? 'run-result differs' : 'run-result'} data-run={runName}>
      <div className="run-output" title={typeof result.output === 'string' ? result.output : JSON.stringify(result.output)}>
        {preview(result.output, 120) || <span className="preview">no output</span>}
        {differs && <span className="visually-hidden"> (output differs)</span>}
      </div>
      <dl className="run-scores">
        {names.map((n) => {
          const score = result.scores.find((s) => s.name === n);
          return (
            <div key={n}>
              <dt>{n}</dt>
              <dd>
                <Score value={score ? score.value : null} best={best.get(n)?.has(index) ?? false} />
              </dd>
            </div>
          );
        })}
        <div>
          <dt>latency</dt>
          <dd>{formatMs(result.latencyMs)}</dd>
        </div>
        <div>
          <dt>cost</dt>
          <dd>{formatCost(result.totalCost)}</dd>
        </div>
      </dl>
      <Link to={`/p/${projectId}/traces/${encodeURIComponent(result.traceId)}`} aria-label={`Trace of run ${runName}`}>
        trace
      </Link>
    </td>
  );
}

export function RunComparePage() {
  const { projectId } = useCurrentProject();
  const { name = '' } = useParams();
  const [params] = useSearchParams();
  const runNames = params.getAll('run');
  const { data, error, isLoading } = useRunComparison(projectId, name, runNames);
  const names = data ? scoreNames(data.items.flatMap((row) => row.results.map((r) => r?.scores ?? []))) : [];
  return (
    <section aria-labelledby="compare-title">
      <p>
        <Link to={`/p/${projectId}/datasets`}>Datasets</Link> /{' '}
        <Link to={`/p/${projectId}/datasets/${encodeURIComponent(name)}`}>{name}</Link> /
      </p>
      <h1 id="compare-title">Runs compared: {runNames.join(' vs ')}</h1>
      {runNames.length < 2 && <p role="alert">Pick at least two runs on the dataset&apos;s page to compare them.</p>}
      {isLoading && runNames.length >= 2 && <p role="status">Loading the runs…</p>}
      <ErrorAlert error={error} />
      {data && (
        <>
          <Aggregates runs={data.runs} />
          <table className="plain compare">
            <caption>Items compared ({formatCount(data.items.length)})</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                {data.runs.map((run) => (
                  <th key={run.id} scope="col">
                    {run.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.items.map((row) => {
                const best = bestScores(row.results);
                const differs = outputsDiffer(row.results);
                return (
                  <tr key={row.datasetItemId} data-item-id={row.datasetItemId}>
                    <th scope="row" className="compare-item">
                      <div className="preview">{row.datasetItemId}</div>
                      <div>{preview(row.input, 120)}</div>
                      <div className="preview">expected: {preview(row.expectedOutput, 120) || '–'}</div>
                      {differs && <span className="tag differs-tag">outputs differ</span>}
                    </th>
                    {row.results.map((result, i) => (
                      <ResultCell
                        key={data.runs[i].id}
                        projectId={projectId}
                        runName={data.runs[i].name}
                        result={result}
                        names={names}
                        best={best}
                        index={i}
                        differs={differs}
                      />
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
