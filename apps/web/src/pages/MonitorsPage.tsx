import { type FormEvent, useState } from 'react';
import { MONITOR_COMPARISONS, MONITOR_LIMITS, MONITOR_METRICS, isScoreMetric } from '@app/domain/monitors/monitor-terms';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { StateBadge, stateOf } from '../components/StateBadge';
import { ActionsHead, ConfirmButton } from '../components/RowActions';
import { ErrorAlert } from '../components/ErrorAlert';
import { FormErrors, formFields } from '../components/form/fields';
import { formErrors } from '../lib/field-errors';
import { formatTime } from '../lib/format';
import {
  EMPTY_MONITOR,
  type Monitor,
  type MonitorFormValues,
  filterText,
  metricText,
  monitorNumber,
  monitorValuesOf,
  toMonitorInput,
  windowText,
} from '../lib/monitor-form';
import { useDeleteMonitor, useMonitorHistory, useMonitors, useRefreshMonitors, useSaveMonitor } from '../data/monitors';
import { useCurrentProject } from '../data/projects';
import { errorMessage } from '../rpc';

/** The server names `windowSeconds`; the form asks for minutes. */
const RENAMED = { windowSeconds: 'windowMinutes' } as const;
const FORM_FIELDS = Object.keys(EMPTY_MONITOR) as (keyof MonitorFormValues)[];
const { Field, Choice, Check } = formFields<MonitorFormValues>('mon');

function MonitorForm({ projectId, editing, onDone }: { projectId: string; editing: Monitor | null; onDone: () => void }) {
  const initial = editing ? monitorValuesOf(editing) : EMPTY_MONITOR;
  const [metric, setMetric] = useState(initial.metric);
  const [error, setError] = useState<string | null>(null);
  const save = useSaveMonitor(projectId, editing);
  const { by, general } = formErrors(error, FORM_FIELDS, RENAMED);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: keyof MonitorFormValues) => String(f.get(k) ?? '');
    setError(null);
    // The RPC's own checks decide: the form sends what was typed and shows what the server names.
    const input = toMonitorInput({
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
    save.mutate(input, { onSuccess: onDone, onError: (err) => setError(errorMessage(err)) });
  };
  const score = isScoreMetric(metric);
  return (
    <form
      onSubmit={submit}
      className="evaluator-form"
      aria-label={editing ? `Edit monitor ${editing.name}` : 'Create a monitor'}
      noValidate
    >
      <Field name="name" label="Name" defaultValue={initial.name} error={by.name} required />
      <Choice
        name="metric"
        label="Metric"
        options={MONITOR_METRICS}
        value={metric}
        onChange={(e) => setMetric(e.target.value)}
        error={by.metric}
      />
      {score && (
        <Field
          name="scoreName"
          label="Score name"
          defaultValue={initial.scoreName}
          error={by.scoreName}
          hint="the scores this metric is about"
        />
      )}
      {!score && <Field name="model" label="Model (optional)" defaultValue={initial.model} error={by.model} />}
      {!score && <Field name="spanType" label="Span type (optional)" defaultValue={initial.spanType} error={by.spanType} />}
      {!score && (
        <Field
          name="operation"
          label="Operation (optional)"
          defaultValue={initial.operation}
          error={by.operation}
          hint="chat, execute_tool, invoke_agent…"
        />
      )}
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
      <Choice
        name="comparison"
        label="Alert when the value is"
        options={MONITOR_COMPARISONS}
        defaultValue={initial.comparison}
        error={by.comparison}
      />
      <Field
        name="threshold"
        label="Threshold"
        type="number"
        step="any"
        defaultValue={initial.threshold}
        error={by.threshold}
        hint={metric === 'latency_p95' ? 'milliseconds' : metric.endsWith('rate') ? '0 to 1' : undefined}
      />
      <Check name="enabled" label="Enabled" defaultChecked={initial.enabled} error={by.enabled} />
      <FormErrors general={general} marked={Object.keys(by).length > 0} />
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
  const history = useMonitorHistory(projectId, monitor.id);
  if (history.error) return <ErrorAlert error={history.error} />;
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
      {!history.isLoading && rows.length === 0 && (
        <p className="muted">No evaluation yet: the processor evaluates monitors once a minute by default.</p>
      )}
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
  const { data, error, isLoading } = useMonitors(projectId);
  const [form, setForm] = useState<{ editing: Monitor | null } | null>(null);
  const [shownId, setShownId] = useState<string | null>(null);
  // The roles that change monitors; the server checks it again (members only read).
  const canManage = !!org && hasRole(org.role, ADMIN_ROLES);
  const refresh = useRefreshMonitors(projectId);
  const remove = useDeleteMonitor(projectId);
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
      <ErrorAlert error={failure} />
      {isLoading && <p role="status">Loading monitors…</p>}
      {!isLoading && monitors.length === 0 && !error && (
        <p className="muted">No monitors in this project yet{canManage ? '' : ': owners and admins create them'}.</p>
      )}
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
              <ActionsHead />
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
                      <ConfirmButton
                        label="Delete"
                        of={m.name}
                        question={`Delete the monitor "${m.name}"?`}
                        onConfirm={() =>
                          remove.mutate(m, {
                            onSuccess: () => {
                              if (shownId === m.id) setShownId(null);
                              refresh();
                            },
                          })
                        }
                      />
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
