import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { FormErrors, formFields } from '../components/form/fields';
import { ErrorAlert } from '../components/ErrorAlert';
import { Pager } from '../components/Pager';
import { useCreateDataset, useDatasetItems, useDatasetRuns, useDatasets } from '../data/datasets';
import { useCurrentProject } from '../data/projects';
import { formErrors } from '../lib/field-errors';
import { formatCount, formatTime } from '../lib/format';
import { errorMessage } from '../rpc';

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

/** Made once: a component made in a render is a new type each render, and React would remount its input at every keystroke. */
const { Field } = formFields<{ name: string; description: string }>('dataset');

/** A new dataset by name (unique in the project) and description; the server's message beside the field it names. */
function CreateDataset({ projectId }: { projectId: string }) {
  const [values, setValues] = useState({ name: '', description: '' });
  const create = useCreateDataset(projectId);
  const navigate = useNavigate();
  const { by, general } = formErrors(create.error ? errorMessage(create.error) : null, ['name', 'description']);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: values.name, ...(values.description && { description: values.description }) },
      { onSuccess: (d) => void navigate(`/p/${projectId}/datasets/${encodeURIComponent(d.name)}`) },
    );
  };
  return (
    <form className="inline-form" aria-label="Create a dataset" onSubmit={submit} noValidate>
      <Field
        name="name"
        label="Name"
        value={values.name}
        error={by.name}
        onChange={(e) => setValues((v) => ({ ...v, name: e.target.value }))}
      />
      <Field
        name="description"
        label="Description"
        value={values.description}
        error={by.description}
        onChange={(e) => setValues((v) => ({ ...v, description: e.target.value }))}
      />
      <FormErrors general={general} marked={Object.keys(by).length > 0} />
      <button type="submit" disabled={create.isPending}>
        Create dataset
      </button>
    </form>
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
      {data && !datasets.length && <p>No datasets yet: create one here or with POST /api/v1/datasets, then add items to it.</p>}
      <CreateDataset projectId={projectId} />
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
