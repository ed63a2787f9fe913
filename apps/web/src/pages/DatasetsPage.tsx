import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert } from '../components/ErrorAlert';
import { Pager } from '../components/Pager';
import { useDatasetItems, useDatasetRuns, useDatasets } from '../data/datasets';
import { useCurrentProject } from '../data/projects';
import { formatCount, formatTime } from '../lib/format';

/** A dataset's counts: the totals of a one-row page of its items and of its runs (newest first). */
function DatasetRow({ projectId, name, description }: { projectId: string; name: string; description: string | null }) {
  const items = useDatasetItems(projectId, name, { limit: 1 });
  const runs = useDatasetRuns(projectId, name, { limit: 1 });
  return (
    <tr>
      <td>
        <Link to={`/p/${projectId}/datasets/${encodeURIComponent(name)}`}>{name}</Link>
      </td>
      <td className="preview">{description ?? ''}</td>
      <td className="num">{formatCount(items.data?.meta.totalItems)}</td>
      <td className="num">{formatCount(runs.data?.meta.totalItems)}</td>
      <td>{runs.data ? (runs.data.data[0] ? `${runs.data.data[0].name} (${formatTime(runs.data.data[0].createdAt)})` : 'none') : '–'}</td>
    </tr>
  );
}

/** Datasets per page: each row reads its item and run counts (two heavy calls), so a page stays within RPC_LIMITS. */
const PAGE_SIZE = 20;

export function DatasetsPage() {
  const { projectId } = useCurrentProject();
  const [page, setPage] = useState(1);
  const { data, error, isLoading } = useDatasets(projectId, { page, limit: PAGE_SIZE });
  const datasets = data?.data ?? [];
  return (
    <section aria-labelledby="datasets-title">
      <h1 id="datasets-title">Datasets</h1>
      {isLoading && <p role="status">Loading datasets…</p>}
      <ErrorAlert error={error} />
      {data && !datasets.length && <p>No datasets yet: create one with POST /api/v1/datasets, then push items to it.</p>}
      {datasets.length > 0 && (
        <table className="plain">
          <caption>Datasets</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Items</th>
              <th scope="col">Runs</th>
              <th scope="col">Last run</th>
            </tr>
          </thead>
          <tbody>
            {datasets.map((d) => (
              <DatasetRow key={d.id} projectId={projectId} name={d.name} description={d.description} />
            ))}
          </tbody>
        </table>
      )}
      <Pager page={page} totalPages={data?.meta.totalPages ?? 0} onPage={setPage} label="Dataset pages" />
    </section>
  );
}
