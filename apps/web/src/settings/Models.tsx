import { type FormEvent, useState } from 'react';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { ActionsHead, ConfirmButton } from '../components/RowActions';
import { ErrorAlert } from '../components/ErrorAlert';
import { FormErrors, formFields } from '../components/form/fields';
import { type ModelDefinition, type ModelList, useModelChanges, useModels } from '../data/models';
import type { Org } from '../data/projects';
import { formErrors } from '../lib/field-errors';
import { formatTime } from '../lib/format';
import { errorMessage } from '../rpc';
import { type ModelFormValues, pricesText, toModelInput } from './model-form';

const EMPTY: ModelFormValues = { modelName: '', matchPattern: '', startDate: '', prices: 'input = \noutput = ' };
const FORM_FIELDS = Object.keys(EMPTY) as (keyof ModelFormValues)[];
const { Field, TextArea } = formFields<ModelFormValues>('model');
const ALWAYS = '1970-01-01T00:00:00.000Z';

const valuesOf = (d: ModelDefinition): ModelFormValues => ({
  modelName: d.modelName,
  matchPattern: d.matchPattern,
  startDate: d.startDate === ALWAYS ? '' : d.startDate,
  prices: pricesText(d.prices),
});

function ModelForm({ projectId, editing, onDone }: { projectId: string; editing: ModelDefinition | null; onDone: () => void }) {
  const initial = editing ? valuesOf(editing) : EMPTY;
  const [error, setError] = useState<string | null>(null);
  const { save } = useModelChanges(projectId);
  const { by, general } = formErrors(error, FORM_FIELDS);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: keyof ModelFormValues) => String(f.get(k) ?? '');
    setError(null);
    const fields = toModelInput({
      modelName: text('modelName'),
      matchPattern: text('matchPattern'),
      startDate: text('startDate'),
      prices: text('prices'),
    });
    save.mutate({ id: editing?.id, fields }, { onSuccess: onDone, onError: (err) => setError(errorMessage(err)) });
  };
  return (
    <form
      onSubmit={submit}
      className="evaluator-form"
      aria-label={editing ? `Edit model ${editing.modelName}` : 'Add a model price'}
      noValidate
    >
      <Field name="modelName" label="Model name" defaultValue={initial.modelName} error={by.modelName} required />
      <Field
        name="matchPattern"
        label="Match pattern"
        defaultValue={initial.matchPattern}
        error={by.matchPattern}
        hint="Anchored regular expression on the span's model, case-insensitive, e.g. ^my-gpt(-\d+)?$"
        required
      />
      <Field name="startDate" label="Start date" defaultValue={initial.startDate} error={by.startDate} hint="ISO 8601; empty: always" />
      <TextArea
        name="prices"
        label="Prices (USD per million tokens, one type a line)"
        defaultValue={initial.prices}
        error={by.prices}
        hint="input, output, cached_input, cache_write, reasoning or any usage type"
        rows={5}
      />
      <FormErrors general={general} marked={Object.keys(by).length > 0} />
      <button type="submit" disabled={save.isPending}>
        {editing ? 'Save' : 'Add'}
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** What the last recomputation did, or is doing. */
function Recomputation({ r }: { r: ModelList['recomputation'] }) {
  if (!r) return null;
  const total = r.spansTotal ?? '…';
  return (
    <p role="status" data-testid="recomputation">
      {r.status === 'running'
        ? `Recomputing past costs: ${r.spansDone} of ${total} spans looked at, ${r.spansRecosted} re-costed (started ${formatTime(r.startedAt)}).`
        : `Past costs recomputed: ${r.spansDone} spans looked at, ${r.spansRecosted} re-costed (finished ${formatTime(r.finishedAt)}).`}
    </p>
  );
}

const perMillion = (prices: Record<string, number>) =>
  Object.entries(prices)
    .map(([type, usd]) => `${type} $${+(usd * 1e6).toPrecision(6)}`)
    .join(', ');
const since = (startDate: string) => (startDate === ALWAYS ? 'always' : formatTime(startDate));

export function Models({ projectId, org }: { projectId: string; org: Org | null }) {
  // The server's rule for every change to a definition; until the role is read, nothing is offered.
  const manages = !!org && hasRole(org.role, ADMIN_ROLES);
  const { data, error } = useModels(projectId);
  const { remove } = useModelChanges(projectId);
  const [form, setForm] = useState<{ editing: ModelDefinition | null } | null>(null);
  return (
    <div>
      <p className="muted">
        Spans without a cost of their own are priced from these: the project&apos;s definitions first, then the built-in ones. A change
        re-costs the project&apos;s past spans.
      </p>
      {manages && !form && (
        <button type="button" onClick={() => setForm({ editing: null })}>
          Add a model price
        </button>
      )}
      {org && !manages && <p className="muted">Owners and admins add, edit and delete model prices; you are a {org.role}.</p>}
      {form && <ModelForm key={form.editing?.id ?? 'new'} projectId={projectId} editing={form.editing} onDone={() => setForm(null)} />}
      <Recomputation r={data?.recomputation ?? null} />
      <ErrorAlert error={remove.error ?? error} />
      <table className="plain">
        <caption>Prices of this project (USD per million tokens)</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Pattern</th>
            <th scope="col">From</th>
            <th scope="col">Prices</th>
            {manages && <ActionsHead />}
          </tr>
        </thead>
        <tbody>
          {data && !data.project.length && (
            <tr>
              <td colSpan={manages ? 5 : 4} className="muted">
                None yet: spans are priced by the built-in prices below.
              </td>
            </tr>
          )}
          {(data?.project ?? []).map((d) => (
            <tr key={d.id}>
              <td>{d.modelName}</td>
              <td>
                <code>{d.matchPattern}</code>
              </td>
              <td>{since(d.startDate)}</td>
              <td>{perMillion(d.prices)}</td>
              {manages && (
                <td className="actions">
                  <button type="button" onClick={() => setForm({ editing: d })}>
                    Edit <span className="visually-hidden">{d.modelName}</span>
                  </button>
                  <ConfirmButton
                    label="Delete"
                    of={d.modelName}
                    question={`Delete the price of ${d.modelName}? Its spans are re-costed with the built-in price, if any.`}
                    onConfirm={() => remove.mutate(d.id)}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>Built-in prices ({data?.builtIn.length ?? 0})</summary>
        <table className="plain">
          <caption>Built-in prices (USD per million tokens)</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Pattern</th>
              <th scope="col">From</th>
              <th scope="col">Prices</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {(data?.builtIn ?? []).map((d) => (
              <tr key={d.id}>
                <td>{d.modelName}</td>
                <td>
                  <code>{d.matchPattern}</code>
                </td>
                <td>{since(d.startDate)}</td>
                <td>{perMillion(d.prices)}</td>
                <td>{d.source ? <a href={d.source}>{new URL(d.source).host}</a> : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
