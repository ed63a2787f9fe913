import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { MONITOR_COMPARISONS, MONITOR_LIMITS, MONITOR_METRICS, isScoreMetric } from '../../../../libs/domain/src/monitors/monitor-terms';
import { ADMIN_ROLES, hasRole } from '../../../../libs/domain/src/roles';
import { StateBadge, stateOf } from '../components/StateBadge';
import { fieldErrors } from '../lib/field-errors';
import { formatTime } from '../lib/format';
import { EMPTY_MONITOR, type Monitor, type MonitorFormValues, filterText, metricText, monitorNumber, monitorValuesOf, toMonitorInput, windowText } from '../lib/monitor-form';
import { MONITOR_POLL_MS, monitorsKey, useMonitors } from '../lib/monitors';
import { useCurrentProject } from '../lib/projects';
import { errorMessage, rpc } from '../rpc';

/** The server names `windowSeconds`; the form asks for minutes. */
const FORM_FIELD: Record<string, keyof MonitorFormValues> = { windowSeconds: 'windowMinutes' };
const FORM_FIELDS = new Set<string>(Object.keys(EMPTY_MONITOR));

function Field({ name, label, error, hint, ...input }: { name: keyof MonitorFormValues; label: string; error?: string; hint?: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  const id = `mon-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} aria-invalid={!!error} aria-describedby={`${id}-msg`} {...input} />
      <small id={`${id}-msg`} className={error ? 'error' : 'muted'}>
        {error ?? hint ?? ''}
      </small>
    </div>
  );
}

function Choice({ name, label, options, error, ...select }: { name: keyof MonitorFormValues; label: string; options: readonly string[]; error?: string } & React.SelectHTMLAttributes<HTMLSelectElement>) {
  const id = `mon-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} aria-invalid={!!error} aria-describedby={`${id}-msg`} {...select}>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
      <small id={`${id}-msg`} className={error ? 'error' : 'muted'}>
        {error ?? ''}
      </small>
    </div>
  );
}

/** Splits the server's message by form field; what names no field of the form stays general. */
function formErrors(message: string | null): { by: Partial<Record<keyof MonitorFormValues, string>>; general: string[] } {
  if (!message) return { by: {}, general: [] };
  const { byField, general } = fieldErrors(message);
  const by: Partial<Record<keyof MonitorFormValues, string>> = {};
  for (const [field, text] of Object.entries(byField)) {
    const own = FORM_FIELD[field] ?? field;
    if (FORM_FIELDS.has(own)) by[own as keyof MonitorFormValues] = text;
    else general.push(text);
  }
  return { by, general };
}

function MonitorForm({ projectId, editing, onDone }: { projectId: string; editing: Monitor | null; onDone: () => void }) {
  const initial = editing ? monitorValuesOf(editing) : EMPTY_MONITOR;
  const [metric, setMetric] = useState(initial.metric);
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (v: MonitorFormValues) => {
      // The RPC's own checks decide: the form sends what was typed and shows what the server names.
      const input = toMonitorInput(v);
      return editing ? rpc.monitor.update.mutate({ ...input, projectId, id: editing.id }) : rpc.monitor.create.mutate({ ...input, projectId });
    },
    onSuccess: onDone,
    onError: (err) => setError(errorMessage(err)),
  });
  const { by, general } = formErrors(error);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: keyof MonitorFormValues) => String(f.get(k) ?? '');
    setError(null);
    save.mutate({
      name: text('name'),
      metric: text('metric'),
      scoreName: text('scoreName'),
      model: text('model'),
      spanType: text('spanType'),
      traceName: text('traceName'),
      operation: text('operation'),
      windowMinutes: text('windowMinutes'),
      comparison: text('comparison'),
      threshold: text('threshold'),
      enabled: f.get('enabled') === 'on',
    });
  };
  const score = isScoreMetric(metric);
  return (
    <form onSubmit={submit} className="evaluator-form" aria-label={editing ? `Edit monitor ${editing.name}` : 'Create a monitor'} noValidate>
      <Field name="name" label="Name" defaultValue={initial.name} error={by.name} required />
      <Choice name="metric" label="Metric" options={MONITOR_METRICS} value={metric} onChange={(e) => setMetric(e.target.value)} error={by.metric} />
      {score && <Field name="scoreName" label="Score name" defaultValue={initial.scoreName} error={by.scoreName} hint="the scores this metric is about" />}
      {!score && <Field name="model" label="Model (optional)" defaultValue={initial.model} error={by.model} />}
      {!score && <Field name="spanType" label="Span type (optional)" defaultValue={initial.spanType} error={by.spanType} />}
      {!score && <Field name="operation" label="Operation (optional)" defaultValue={initial.operation} error={by.operation} hint="chat, execute_tool, invoke_agent…" />}
      <Field name="traceName" label="Trace name (optional)" defaultValue={initial.traceName} error={by.traceName} />
      <Field
        name="windowMinutes"
        label="Window (minutes)"
        type="number"
        min={MONITOR_LIMITS.minWindowSeconds / 60}
        max={MONITOR_LIMITS.maxWindowSeconds / 60}
        step={MONITOR_LIMITS.windowStepSeconds / 60}
        defaultValue={initial.windowMinutes}
        error={by.windowMinutes}
        hint={`${MONITOR_LIMITS.minWindowSeconds / 60} to ${MONITOR_LIMITS.maxWindowSeconds / 60}, in steps of ${MONITOR_LIMITS.windowStepSeconds / 60}`}
      />
      <Choice name="comparison" label="Alert when the value is" options={MONITOR_COMPARISONS} defaultValue={initial.comparison} error={by.comparison} />
      <Field name="threshold" label="Threshold" type="number" step="any" defaultValue={initial.threshold} error={by.threshold} hint={metric === 'latency_p95' ? 'milliseconds' : metric.endsWith('rate') ? '0 to 1' : undefined} />
      <div className="field">
        <label>
          <input type="checkbox" name="enabled" defaultChecked={initial.enabled} /> Enabled
        </label>
        {by.enabled && <small className="error">{by.enabled}</small>}
      </div>
      {general.length > 0 && (
        <p role="alert" className="error">
          {general.join('; ')}
        </p>
      )}
      {Object.keys(by).length > 0 && (
        <p role="alert" className="error">
          Please correct the fields marked above.
        </p>
      )}
      <button type="submit" disabled={save.isPending}>
        {editing ? 'Save changes' : 'Create monitor'}
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** A monitor's changes of state, newest first, paged with the history cursor. */
function History({ projectId, monitor }: { projectId: string; monitor: Monitor }) {
  const history = useInfiniteQuery({
    queryKey: ['monitor-history', projectId, monitor.id],
    queryFn: ({ pageParam }) => rpc.monitor.history.query({ projectId, id: monitor.id, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.nextCursor ?? undefined,
    refetchInterval: MONITOR_POLL_MS,
  });
  if (history.error) return <p role="alert">{errorMessage(history.error)}</p>;
  const rows = history.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History of {monitor.name}</h2>
      <table className="plain">
        <caption className="visually-hidden">State changes of {monitor.name}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">State</th>
            <th scope="col">From</th>
            <th scope="col">Value</th>
            <th scope="col">Threshold</th>
            <th scope="col">Window</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((h) => (
            <tr key={`${h.at}-${h.state}`} data-testid="history-row">
              <td>{formatTime(h.at)}</td>
              <td>
                <StateBadge state={h.state} />
              </td>
              <td>{h.previousState ?? '–'}</td>
              <td className="num" data-testid="history-value">
                {monitorNumber(monitor.metric, h.value)}
              </td>
              <td className="num" data-testid="history-threshold">
                {h.comparison} {monitorNumber(monitor.metric, h.threshold)}
              </td>
              <td>
                {formatTime(h.windowStart)} – {formatTime(h.windowEnd)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!history.isLoading && rows.length === 0 && <p className="muted">No evaluation yet: the processor evaluates monitors once a minute by default.</p>}
      {history.hasNextPage && (
        <button type="button" onClick={() => void history.fetchNextPage()} disabled={history.isFetchingNextPage}>
          Older changes
        </button>
      )}
    </section>
  );
}

export function MonitorsPage() {
  const { projectId, org, project } = useCurrentProject();
  const queries = useQueryClient();
  const { data, error, isLoading } = useMonitors(projectId);
  const [form, setForm] = useState<{ editing: Monitor | null } | null>(null);
  const [shownId, setShownId] = useState<string | null>(null);
  // The roles that change monitors; the server checks it again (members only read).
  const canManage = !!org && hasRole(org.role, ADMIN_ROLES);
  const refresh = () => void queries.invalidateQueries({ queryKey: monitorsKey(projectId) });
  const remove = useMutation({
    mutationFn: (m: Monitor) => rpc.monitor.delete.mutate({ projectId, id: m.id }),
    onSuccess: (_, m) => {
      if (shownId === m.id) setShownId(null);
      refresh();
    },
  });
  const monitors = data ?? [];
  const shown = monitors.find((m) => m.id === shownId) ?? null;
  const failure = remove.error ?? error;
  return (
    <section aria-labelledby="monitors-title">
      <div className="page-head">
        <h1 id="monitors-title">Monitors{project ? ` · ${project.name}` : ''}</h1>
        {canManage && !form && (
          <button type="button" onClick={() => setForm({ editing: null })}>
            New monitor
          </button>
        )}
      </div>
      {form && (
        <MonitorForm
          key={form.editing?.id ?? 'new'}
          projectId={projectId}
          editing={form.editing}
          onDone={() => {
            setForm(null);
            refresh();
          }}
        />
      )}
      {failure && <p role="alert">{errorMessage(failure)}</p>}
      {isLoading && <p role="status">Loading monitors…</p>}
      {!isLoading && monitors.length === 0 && !error && <p className="muted">No monitors in this project yet{canManage ? '' : ': owners and admins create them'}.</p>}
      {monitors.length > 0 && (
        <table className="plain">
          <caption>Monitors of the project</caption>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Name</th>
              <th scope="col">Metric</th>
              <th scope="col">Filter</th>
              <th scope="col">Window</th>
              <th scope="col">Alert when</th>
              <th scope="col">Last value</th>
              <th scope="col">Evaluated</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {monitors.map((m) => (
              <tr key={m.id} data-monitor-id={m.id} aria-selected={m.id === shownId}>
                <td>
                  <StateBadge state={stateOf(m)} />
                </td>
                <td>{m.name}</td>
                <td>{metricText(m)}</td>
                <td>{filterText(m.filter)}</td>
                <td>{windowText(m.windowSeconds)}</td>
                <td className="num">
                  {m.comparison} {monitorNumber(m.metric, m.threshold)}
                </td>
                <td className="num" data-testid="monitor-value">
                  {monitorNumber(m.metric, m.value)}
                </td>
                <td>{formatTime(m.evaluatedAt)}</td>
                <td className="actions">
                  <button type="button" onClick={() => setShownId(m.id)}>
                    History <span className="visually-hidden">of {m.name}</span>
                  </button>
                  {canManage && (
                    <>
                      <button type="button" onClick={() => setForm({ editing: m })}>
                        Edit <span className="visually-hidden">{m.name}</span>
                      </button>
                      <button
                        type="button"
                        onClick={() => {
                          if (window.confirm(`Delete the monitor "${m.name}"?`)) remove.mutate(m);
                        }}
                      >
                        Delete <span className="visually-hidden">{m.name}</span>
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {shown && <History key={shown.id} projectId={projectId} monitor={shown} />}
    </section>
  );
}
