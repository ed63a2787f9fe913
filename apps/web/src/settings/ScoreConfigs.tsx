import { type FormEvent, useState } from 'react';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { ErrorAlert } from '../components/ErrorAlert';
import { ActionsHead } from '../components/RowActions';
import { FormErrors, formFields } from '../components/form/fields';
import type { Org } from '../data/projects';
import { type ScoreConfig, useArchiveScoreConfig, useSaveScoreConfig, useScoreConfigs } from '../data/scores';
import { formErrors } from '../lib/field-errors';
import { errorMessage } from '../rpc';
import { SCORE_DATA_TYPES, type ScoreConfigFormValues, categoriesText, toScoreConfigInput } from './score-config-form';

const EMPTY: ScoreConfigFormValues = { name: '', dataType: 'NUMERIC', minValue: '', maxValue: '', categories: '', description: '' };
const valuesOf = (c: ScoreConfig): ScoreConfigFormValues => ({
  name: c.name,
  dataType: c.dataType,
  minValue: c.minValue === null ? '' : String(c.minValue),
  maxValue: c.maxValue === null ? '' : String(c.maxValue),
  categories: categoriesText(c.categories),
  description: c.description ?? '',
});
const FORM_FIELDS = Object.keys(EMPTY) as (keyof ScoreConfigFormValues)[];
const { Field, TextArea, Choice } = formFields<ScoreConfigFormValues>('sc');

/** What a config takes, in a word: its range, its categories, or true/false. */
export function configRange(c: Pick<ScoreConfig, 'dataType' | 'minValue' | 'maxValue' | 'categories'>): string {
  switch (c.dataType) {
    case 'NUMERIC':
      return c.minValue === null && c.maxValue === null ? 'any number' : `${c.minValue ?? '−∞'} to ${c.maxValue ?? '∞'}`;
    case 'CATEGORICAL':
      return c.categories.map((k) => `${k.label} (${k.value})`).join(', ');
    case 'BOOLEAN':
      return 'true or false';
  }
}

function ScoreConfigForm({ projectId, editing, onDone }: { projectId: string; editing: ScoreConfig | null; onDone: () => void }) {
  const initial = editing ? valuesOf(editing) : EMPTY;
  const [dataType, setDataType] = useState(initial.dataType);
  const [error, setError] = useState<string | null>(null);
  const save = useSaveScoreConfig(projectId, editing);
  const { by, general } = formErrors(error, FORM_FIELDS);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: keyof ScoreConfigFormValues) => String(f.get(k) ?? '');
    setError(null);
    const input = toScoreConfigInput({
      name: text('name'),
      dataType,
      minValue: text('minValue'),
      maxValue: text('maxValue'),
      categories: text('categories'),
      description: text('description'),
    });
    save.mutate(input, { onSuccess: onDone, onError: (err) => setError(errorMessage(err)) });
  };
  return (
    <form
      onSubmit={submit}
      className="evaluator-form"
      aria-label={editing ? `Edit score config ${editing.name}` : 'Create a score config'}
      noValidate
    >
      <Field name="name" label="Name (the score name)" defaultValue={initial.name} error={by.name} required />
      <Choice
        name="dataType"
        label="Data type"
        options={SCORE_DATA_TYPES}
        value={dataType}
        onChange={(e) => setDataType(e.target.value)}
        disabled={!!editing}
        error={by.dataType}
        hint={editing ? 'Scores were checked against it, so it stays.' : undefined}
      />
      {dataType === 'NUMERIC' && (
        <>
          <Field
            name="minValue"
            label="Minimum"
            type="number"
            step="any"
            defaultValue={initial.minValue}
            error={by.minValue}
            hint="Empty for none"
          />
          <Field
            name="maxValue"
            label="Maximum"
            type="number"
            step="any"
            defaultValue={initial.maxValue}
            error={by.maxValue}
            hint="Empty for none"
          />
        </>
      )}
      {dataType === 'CATEGORICAL' && (
        <TextArea
          name="categories"
          label="Categories, one per line as label = value"
          rows={3}
          defaultValue={initial.categories}
          error={by.categories}
          hint="A score's value is a category's label."
        />
      )}
      <TextArea name="description" label="Description" rows={2} defaultValue={initial.description} error={by.description} />
      <FormErrors general={general} marked={Object.keys(by).length > 0} />
      <button type="submit" disabled={save.isPending}>
        {editing ? 'Save changes' : 'Create score config'}
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** Settings → Scores: the project's score configs, which every score of their name must fit (issue 30). */
export function ScoreConfigs({ projectId, org }: { projectId: string; org: Org | null }) {
  const manages = !!org && hasRole(org.role, ADMIN_ROLES);
  const { data, error } = useScoreConfigs(projectId);
  const [form, setForm] = useState<{ editing: ScoreConfig | null } | null>(null);
  const archive = useArchiveScoreConfig(projectId);
  return (
    <div>
      <p className="muted">
        A score whose name has a config must fit it, whatever sends it (the API, an evaluator, a person); people score with these configs in
        the trace view. An archived config checks nothing and is not offered.
      </p>
      {manages && !form && (
        <button type="button" onClick={() => setForm({ editing: null })}>
          New score config
        </button>
      )}
      {org && !manages && <p className="muted">Owners and admins create, edit and archive score configs; you are a {org.role}.</p>}
      {form && (
        <ScoreConfigForm key={form.editing?.id ?? 'new'} projectId={projectId} editing={form.editing} onDone={() => setForm(null)} />
      )}
      <ErrorAlert error={archive.error ?? error} />
      <table className="plain">
        <caption>Score configs</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Data type</th>
            <th scope="col">Takes</th>
            <th scope="col">Description</th>
            <th scope="col">Status</th>
            {manages && <ActionsHead />}
          </tr>
        </thead>
        <tbody>
          {data && !data.length && (
            <tr>
              <td colSpan={manages ? 6 : 5} className="muted">
                None yet: scores of any name are taken as sent.
              </td>
            </tr>
          )}
          {(data ?? []).map((c) => (
            <tr key={c.id}>
              <td>{c.name}</td>
              <td>{c.dataType}</td>
              <td>{configRange(c)}</td>
              <td>{c.description ?? ''}</td>
              <td>{c.archived ? 'archived' : 'active'}</td>
              {manages && (
                <td className="actions">
                  <button type="button" onClick={() => setForm({ editing: c })}>
                    Edit <span className="visually-hidden">{c.name}</span>
                  </button>
                  <button type="button" onClick={() => archive.mutate(c)}>
                    {c.archived ? 'Restore' : 'Archive'} <span className="visually-hidden">{c.name}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
