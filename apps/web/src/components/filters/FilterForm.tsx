import { type FormEvent, type InputHTMLAttributes, type ReactNode, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { FilterValueField } from '@app/domain/reads/filter-values';
import { useFilterValues } from '../../data/traces';
import { Combobox } from '../Combobox';

/**
 * A list's filters, kept in the URL under each field's name: Apply writes what was typed (blank
 * fields left out), Clear empties them. The form is drawn anew when the URL changes (back,
 * a link), so every field shows the URL's value.
 */
export function FilterForm({ label, children }: { label: string; children: ReactNode }) {
  const [params, setParams] = useSearchParams();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [key, value] of new FormData(e.currentTarget)) if (String(value).trim()) next.set(key, String(value).trim());
    setParams(next);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label={label} key={params.toString()}>
      {children}
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => setParams(new URLSearchParams())}>
          Clear
        </button>
      </div>
    </form>
  );
}

/** The URL's value of a filter, as the field starts. */
const useUrlValue = (name: string) => useSearchParams()[0].get(name) ?? '';

/** A free-text (or number) filter. */
export function FilterText({ name, label, ...input }: { name: string; label: string } & InputHTMLAttributes<HTMLInputElement>) {
  const value = useUrlValue(name);
  return (
    <label>
      {label}
      <input name={name} defaultValue={value} {...input} />
    </label>
  );
}

/** A filter offering the project's known values that contain what is typed, in any case. */
export function FilterPicker({
  projectId,
  field,
  label,
  list,
}: {
  projectId: string;
  field: FilterValueField;
  label: string;
  list?: boolean;
}) {
  const [term, setTerm] = useState<string | null>(null);
  const values = useFilterValues(projectId, field, term);
  const value = useUrlValue(field);
  return (
    <Combobox
      name={field}
      label={label}
      list={list}
      defaultValue={value}
      options={values.data?.data ?? []}
      loading={values.isFetching}
      onSearch={setTerm}
    />
  );
}

/** The time range, in the URL as `from` and `to`. */
export function FilterTimeRange({ fromLabel, toLabel }: { fromLabel: string; toLabel: string }) {
  return (
    <>
      <FilterText name="from" label={fromLabel} type="datetime-local" />
      <FilterText name="to" label={toLabel} type="datetime-local" />
    </>
  );
}
