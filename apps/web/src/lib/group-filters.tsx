import type { FormEvent } from 'react';
import { useSearchParams } from 'react-router';

/** The filters of the sessions and users lists, in the URL (names as the API's), so a filtered list can be shared. */
export function groupFiltersFrom(params: URLSearchParams, keys: readonly string[]) {
  const time = (k: string) => (params.get(k) ? new Date(params.get(k) as string).toISOString() : undefined);
  const text = Object.fromEntries(keys.map((k) => [k, params.get(k) || undefined]));
  return { ...text, fromTimestamp: time('from'), toTimestamp: time('to') };
}

export function GroupFilters({ label, fields }: { label: string; fields: readonly (readonly [string, string])[] }) {
  const [params, setParams] = useSearchParams();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [key, value] of new FormData(e.currentTarget)) if (String(value).trim()) next.set(key, String(value).trim());
    setParams(next);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label={label} key={params.toString()}>
      {fields.map(([key, text]) => (
        <label key={key}>
          {text}
          <input name={key} defaultValue={params.get(key) ?? ''} />
        </label>
      ))}
      <label>
        Active from
        <input name="from" type="datetime-local" defaultValue={params.get('from') ?? ''} />
      </label>
      <label>
        Active to
        <input name="to" type="datetime-local" defaultValue={params.get('to') ?? ''} />
      </label>
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => setParams(new URLSearchParams())}>
          Clear
        </button>
      </div>
    </form>
  );
}
