import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorAlert } from '../components/ErrorAlert';
import { Pager } from '../components/Pager';
import { ImportItems, ItemForm } from '../components/DatasetItems';
import {
  type DatasetItem,
  type DatasetRun,
  type ItemFields,
  fetchAllRunItems,
  useDataset,
  useDatasetItemActions,
  useDatasetItems,
  useDatasetRuns,
  useRunSummaries,
} from '../data/datasets';
import { useCurrentProject } from '../data/projects';
import { errorMessage } from '../rpc';
import { downloadCsv } from '../lib/csv';
import { formatCost, formatCount, formatMs, formatScore, formatTime, preview } from '../lib/format';
import { runCsv, scoreNames } from '../lib/run-compare';

/**
 * Items and runs per page. Each run shown costs a read of its aggregates (counted among the
 * session's heavy calls per second), so a page stays well within RPC_LIMITS.
 */
const PAGE_SIZE = 20;
/** The compare view takes two to ten runs (`dataset.compare`). */
const COMPARE = { min: 2, max: 10 };

/** The fields of a stored item that a change sends back: all of them, so that only what is edited changes. */
const fieldsOf = (item: DatasetItem): ItemFields => ({
  id: item.id,
  input: item.input,
  expectedOutput: item.expectedOutput,
  metadata: item.metadata,
  sourceTraceId: item.sourceTraceId ?? undefined,
  sourceSpanId: item.sourceSpanId ?? undefined,
  status: item.status,
});

function Items({ projectId, name }: { projectId: string; name: string }) {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<ItemFields | null>(null);
  const { data, error, isLoading } = useDatasetItems(projectId, name, { page, limit: PAGE_SIZE });
  const { archive } = useDatasetItemActions(projectId);
  if (isLoading) return <p role="status">Loading items…</p>;
  if (error) return <ErrorAlert error={error} />;
  const items = data?.data ?? [];
  return (
    <div>
      <div className="item-actions">
        {editing ? (
          <ItemForm
            key={editing.id ?? 'new'}
            projectId={projectId}
            datasetName={name}
            initial={editing}
            title={editing.id ? `Edit item ${editing.id}` : 'Add an item'}
            onDone={() => setEditing(null)}
          />
        ) : (
          <button type="button" onClick={() => setEditing({})}>
            Add item
          </button>
        )}
        <ImportItems projectId={projectId} datasetName={name} />
      </div>
      {archive.error && <ErrorAlert error={archive.error} />}
      <table className="plain">
        <caption>Items ({formatCount(data?.meta.totalItems)})</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Input</th>
            <th scope="col">Expected output</th>
            <th scope="col">Status</th>
            <th scope="col">Source trace</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id}>
              <td className="preview">{item.id}</td>
              <td className="preview">{preview(item.input)}</td>
              <td className="preview">{preview(item.expectedOutput)}</td>
              <td>
                <span className="tag">{item.status}</span>
              </td>
              <td>{item.sourceTraceId && <Link to={`/p/${projectId}/traces/${encodeURIComponent(item.sourceTraceId)}`}>trace</Link>}</td>
              <td className="row-actions">
                <button type="button" aria-label={`Edit item ${item.id}`} onClick={() => setEditing(fieldsOf(item))}>
                  Edit
                </button>
                <button
                  type="button"
                  aria-label={`${item.status === 'ARCHIVED' ? 'Unarchive' : 'Archive'} item ${item.id}`}
                  disabled={archive.isPending}
                  onClick={() => archive.mutate({ datasetName: name, itemId: item.id, archived: item.status !== 'ARCHIVED' })}
                >
                  {item.status === 'ARCHIVED' ? 'Unarchive' : 'Archive'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!items.length && <p>No items yet: add one here, import a file, or push them with POST /api/v1/datasets/{name}/items.</p>}
      <Pager page={page} totalPages={data?.meta.totalPages ?? 0} onPage={setPage} label="Item pages" />
    </div>
  );
}

/** Builds the run's CSV from all its items, in the browser. */
function ExportButton({ projectId, name, runName }: { projectId: string; name: string; runName: string }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const exportRun = async () => {
    setState({ busy: true, error: null });
    try {
      downloadCsv(`${name}-${runName}.csv`, runCsv(await fetchAllRunItems(projectId, name, runName)));
      setState({ busy: false, error: null });
    } catch (err) {
      setState({ busy: false, error: errorMessage(err) });
    }
  };
  return (
    <>
      <button type="button" disabled={state.busy} onClick={() => void exportRun()} aria-label={`Export run ${runName} as CSV`}>
        {state.busy ? 'Exporting…' : 'CSV'}
      </button>
      {state.error && <span role="alert">{state.error}</span>}
    </>
  );
}

function Runs({ projectId, name }: { projectId: string; name: string }) {
  const [page, setPage] = useState(1);
  const [picked, setPicked] = useState<string[]>([]);
  const navigate = useNavigate();
  const { data, error, isLoading } = useDatasetRuns(projectId, name, { page, limit: PAGE_SIZE });
  const runs: DatasetRun[] = data?.data ?? [];
  const summaries = useRunSummaries(
    projectId,
    name,
    runs.map((r) => r.name),
  );
  if (isLoading) return <p role="status">Loading runs…</p>;
  if (error) return <ErrorAlert error={error} />;
  const names = scoreNames(summaries.map((s) => s.data?.aggregates.scores ?? []));
  // The runs' own scores (`datasetRunId`), beside the means of their items'.
  const runScoreNames = scoreNames(summaries.map((s) => s.data?.scores ?? []));
  const toggle = (run: string) => setPicked((p) => (p.includes(run) ? p.filter((r) => r !== run) : [...p, run]));
  const compare = () =>
    void navigate(
      `/p/${projectId}/datasets/${encodeURIComponent(name)}/compare?${picked.map((r) => `run=${encodeURIComponent(r)}`).join('&')}`,
    );
  return (
    <div>
      <table className="plain">
        <caption>Runs ({formatCount(data?.meta.totalItems)})</caption>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Compare</span>
            </th>
            <th scope="col">Run</th>
            <th scope="col">Created</th>
            <th scope="col">Items</th>
            {names.map((n) => (
              <th key={n} scope="col">
                {n} (mean)
              </th>
            ))}
            {runScoreNames.map((n) => (
              <th key={`run-${n}`} scope="col">
                {n} (run)
              </th>
            ))}
            <th scope="col">Latency p50</th>
            <th scope="col">Latency p95</th>
            <th scope="col">Total cost</th>
            <th scope="col">Export</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run, i) => {
            const summary = summaries[i];
            const agg = summary?.data?.aggregates;
            return (
              <tr key={run.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Compare run ${run.name}`}
                    checked={picked.includes(run.name)}
                    disabled={!picked.includes(run.name) && picked.length >= COMPARE.max}
                    onChange={() => toggle(run.name)}
                  />
                </td>
                <td>{run.name}</td>
                <td>{formatTime(run.createdAt)}</td>
                <td className="num">{formatCount(agg?.count)}</td>
                {names.map((n) => {
                  const mean = agg?.scores.find((s) => s.name === n);
                  return (
                    <td key={n} className="num">
                      {mean ? formatScore(mean.mean) : '–'}
                    </td>
                  );
                })}
                {runScoreNames.map((n) => {
                  const score = summary?.data?.scores.find((s) => s.name === n);
                  return (
                    <td key={`run-${n}`} className="num">
                      {score ? (typeof score.value === 'number' ? formatScore(score.value) : String(score.value)) : '–'}
                    </td>
                  );
                })}
                <td className="num">{formatMs(agg?.latencyMs.p50)}</td>
                <td className="num">{formatMs(agg?.latencyMs.p95)}</td>
                <td className="num">{formatCost(agg?.totalCost)}</td>
                <td>
                  <ExportButton projectId={projectId} name={name} runName={run.name} />
                  {summary?.error && <span role="alert">{errorMessage(summary.error)}</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {!runs.length && <p>No runs yet: an experiment run over the dataset (POST /api/public/dataset-run-items) shows here.</p>}
      <Pager page={page} totalPages={data?.meta.totalPages ?? 0} onPage={setPage} label="Run pages" />
      {runs.length >= COMPARE.min && (
        <p className="diff-pick">
          <button type="button" disabled={picked.length < COMPARE.min} onClick={compare}>
            Compare {picked.length >= COMPARE.min ? `${picked.length} runs` : 'selected runs'}
          </button>
          <span className="preview">
            Pick {COMPARE.min} to {COMPARE.max} runs.
          </span>
        </p>
      )}
    </div>
  );
}

export function DatasetPage() {
  const { projectId } = useCurrentProject();
  const { name = '' } = useParams();
  const { data, error } = useDataset(projectId, name);
  return (
    <section aria-labelledby="dataset-title">
      <p>
        <Link to={`/p/${projectId}/datasets`}>Datasets</Link> /
      </p>
      <h1 id="dataset-title">{name}</h1>
      <ErrorAlert error={error} />
      {data?.description && <p>{data.description}</p>}
      {data && (
        <>
          <Runs projectId={projectId} name={name} />
          <Items projectId={projectId} name={name} />
        </>
      )}
    </section>
  );
}
