import { type ChangeEvent, type FormEvent, useMemo, useState } from 'react';
import { type DatasetImport, type ImportFormat, readDatasetImport } from '@app/domain/datasets/dataset-import';
import { DATASET_LIMITS } from '@app/domain/limits';
import { type ItemFields, importItems, useDatasetItemActions, useDatasets, withIds } from '../data/datasets';
import { formErrors } from '../lib/field-errors';
import { errorMessage } from '../rpc';
import { FormErrors, formFields } from './form/fields';

type JsonFieldName = 'input' | 'expectedOutput' | 'metadata';
const JSON_FIELDS: { name: JsonFieldName; label: string }[] = [
  { name: 'input', label: 'Input' },
  { name: 'expectedOutput', label: 'Expected output' },
  { name: 'metadata', label: 'Metadata' },
];

const jsonText = (value: unknown): string => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2));

/** A JSON editor's text as a value: empty leaves the field out; anything else must parse. */
function parseJson(text: string): { value?: unknown; error?: string } {
  if (!text.trim()) return {};
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
}

/**
 * An item's input, expected output and metadata as JSON, added to a dataset or changed in it:
 * each editor says at once when its text is no JSON, and the server's message beside the
 * field it names. `datasetName` null: the dataset is picked here (adding from a trace).
 */
export function ItemForm({
  projectId,
  datasetName,
  initial,
  title,
  onDone,
}: {
  projectId: string;
  datasetName: string | null;
  initial: ItemFields;
  title: string;
  /** `saved`: the item was stored (false: cancelled). */
  onDone: (saved: boolean) => void;
}) {
  const [texts, setTexts] = useState<Record<JsonFieldName, string>>({
    input: jsonText(initial.input),
    expectedOutput: jsonText(initial.expectedOutput),
    metadata: jsonText(initial.metadata),
  });
  const datasets = useDatasets(projectId, { limit: DATASET_LIMITS.list.max }, datasetName === null);
  const [picked, setPicked] = useState('');
  const target = datasetName ?? (picked || datasets.data?.data[0]?.name || '');
  const { upsert } = useDatasetItemActions(projectId);
  const parsed = Object.fromEntries(JSON_FIELDS.map(({ name }) => [name, parseJson(texts[name])])) as Record<
    JsonFieldName,
    ReturnType<typeof parseJson>
  >;
  const invalid = JSON_FIELDS.some(({ name }) => parsed[name].error);
  // One item is sent as `items[0]`: its messages name the field past that.
  const server = formErrors(upsert.error ? errorMessage(upsert.error).replace(/items\[0\]\./g, '') : null, [
    'input',
    'expectedOutput',
    'metadata',
  ]);
  const prefix = `item-${initial.id ?? initial.sourceSpanId ?? initial.sourceTraceId ?? 'new'}`;
  // Made once per prefix: made at each render, the text areas would be remounted at every keystroke.
  const { TextArea } = useMemo(() => formFields<Record<JsonFieldName, string>>(prefix), [prefix]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (invalid || !target) return;
    const { input, expectedOutput, metadata } = parsed;
    const item: ItemFields = {
      ...initial,
      input: input.value,
      expectedOutput: expectedOutput.value,
      metadata: metadata.value,
    };
    upsert.mutate({ datasetName: target, items: [item] }, { onSuccess: () => onDone(true) });
  };
  return (
    <form className="item-form" aria-label={title} onSubmit={submit} noValidate>
      {datasetName === null && (
        <div className="field">
          <label htmlFor={`${prefix}-dataset`}>Dataset</label>
          <select id={`${prefix}-dataset`} value={target} onChange={(e) => setPicked(e.target.value)}>
            {(datasets.data?.data ?? []).map((d) => (
              <option key={d.id} value={d.name}>
                {d.name}
              </option>
            ))}
          </select>
          {datasets.data && !datasets.data.data.length && (
            <small className="error">No datasets yet: create one on the Datasets page.</small>
          )}
        </div>
      )}
      {JSON_FIELDS.map(({ name, label }) => (
        <TextArea
          key={name}
          name={name}
          label={`${label} (JSON)`}
          rows={name === 'metadata' ? 2 : 4}
          spellCheck={false}
          className="json-editor"
          value={texts[name]}
          onChange={(e: ChangeEvent<HTMLTextAreaElement>) => setTexts((t) => ({ ...t, [name]: e.target.value }))}
          error={parsed[name].error ? `${label}: ${parsed[name].error}` : server.by[name]}
          hint="Empty leaves it out."
        />
      ))}
      {(initial.sourceTraceId || initial.sourceSpanId) && (
        <p className="muted">
          From trace {initial.sourceTraceId}
          {initial.sourceSpanId && `, span ${initial.sourceSpanId}`}
        </p>
      )}
      <FormErrors general={server.general} marked={Object.keys(server.by).length > 0} />
      <button type="submit" disabled={invalid || !target || upsert.isPending}>
        Save item
      </button>
      <button type="button" onClick={() => onDone(false)}>
        Cancel
      </button>
    </form>
  );
}

const formatOf = (fileName: string): ImportFormat => (/\.csv$/i.test(fileName) ? 'csv' : 'jsonl');

/**
 * Items from a JSONL file (an item object a line) or a CSV file (columns input,
 * expectedOutput, metadata; cells that look like JSON read as JSON). Every line is read and
 * checked before any is sent: one line at fault lists every fault and imports nothing.
 */
export function ImportItems({ projectId, datasetName }: { projectId: string; datasetName: string }) {
  const [file, setFile] = useState<{ name: string; read: DatasetImport } | null>(null);
  const [state, setState] = useState<{ busy: boolean; errors: DatasetImport['errors']; imported: number | null; failure: string | null }>({
    busy: false,
    errors: [],
    imported: null,
    failure: null,
  });
  const { refresh } = useDatasetItemActions(projectId);
  /** A new key empties the file input. */
  const [picker, setPicker] = useState(0);
  const choose = async (e: ChangeEvent<HTMLInputElement>) => {
    const chosen = e.target.files?.[0];
    if (!chosen) return setFile(null);
    const read = readDatasetImport(await chosen.text(), formatOf(chosen.name));
    setFile({ name: chosen.name, read: { ...read, lines: withIds(read.lines) } });
    setState({ busy: false, errors: read.errors, imported: null, failure: null });
  };
  const run = async () => {
    if (!file || file.read.errors.length) return;
    setState({ busy: true, errors: [], imported: null, failure: null });
    try {
      const { errors, imported } = await importItems(projectId, datasetName, file.read.lines);
      setState({ busy: false, errors, imported: errors.length ? null : imported, failure: null });
      if (imported) {
        refresh(datasetName);
        // Done: the file is cleared, so a second click cannot import it twice, and choosing it again reads it afresh.
        setFile(null);
        setPicker((k) => k + 1);
      }
    } catch (err) {
      setState({ busy: false, errors: [], imported: null, failure: errorMessage(err) });
    }
  };
  return (
    <div className="import-items">
      <div className="field">
        <label htmlFor="import-file">Import items from a JSONL or CSV file</label>
        <input key={picker} id="import-file" type="file" accept=".jsonl,.ndjson,.json,.csv,text/csv" onChange={(e) => void choose(e)} />
        <small className="muted">
          JSONL: an item object a line. CSV: columns input, expectedOutput, metadata; cells that look like JSON are read as JSON.
        </small>
      </div>
      {file && !file.read.errors.length && (
        <button type="button" disabled={state.busy || !file.read.lines.length} onClick={() => void run()}>
          {state.busy ? 'Importing…' : `Import ${file.read.lines.length} items from ${file.name}`}
        </button>
      )}
      {state.errors.length > 0 && (
        <div role="alert" className="error">
          <p>
            Nothing was imported: {state.errors.length} {state.errors.length === 1 ? 'line is' : 'lines are'} at fault.
          </p>
          <ul aria-label="Import errors">
            {state.errors.map((e) => (
              <li key={`${e.line}-${e.message}`}>
                Line {e.line}: {e.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {state.failure && (
        <p role="alert" className="error">
          {state.failure}
        </p>
      )}
      {state.imported !== null && <p role="status">Imported {state.imported} items.</p>}
    </div>
  );
}

/** "Add to dataset" on a trace or a span: the dataset is picked, input and expected output prefilled from it. */
export function AddToDataset({
  projectId,
  source,
  label,
}: {
  projectId: string;
  source: { traceId: string; spanId?: string; input: unknown; output: unknown };
  label: string;
}) {
  const [open, setOpen] = useState(false);
  const [added, setAdded] = useState(false);
  if (!open)
    return (
      <p>
        <button type="button" onClick={() => setOpen(true)}>
          Add to dataset <span className="visually-hidden">{label}</span>
        </button>
        {added && <span role="status"> Added to the dataset.</span>}
      </p>
    );
  return (
    <ItemForm
      projectId={projectId}
      datasetName={null}
      title={`Add ${label} to a dataset`}
      initial={{
        input: source.input ?? undefined,
        expectedOutput: source.output ?? undefined,
        sourceTraceId: source.traceId,
        sourceSpanId: source.spanId,
      }}
      onDone={(saved) => {
        setOpen(false);
        setAdded(saved);
      }}
    />
  );
}
