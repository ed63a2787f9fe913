import { type FormEvent, useRef, useState } from 'react';
import { Link } from 'react-router';
import { EVALUATOR_TARGETS, JUDGE_SCORE_TYPES, type EvaluatorKind, type JudgeScoreType } from '@app/domain/evaluators/evaluator';
import { EVALUATOR_LIMITS } from '@app/domain/limits';
import { ADMIN_ROLES, hasRole } from '@app/domain/roles';
import { CopyButton } from '../components/CopyButton';
import { ActionsHead, ConfirmButton } from '../components/RowActions';
import { Dialog } from '../components/Dialog';
import { ErrorAlert } from '../components/ErrorAlert';
import { FormErrors, formFields } from '../components/form/fields';
import { TabList, TabPanel } from '../components/Tabs';
import { type Evaluator, useEvaluatorActions, useEvaluators, useRefreshEvaluators, useSaveEvaluator } from '../data/evaluators';
import { useLlmConnections } from '../data/llm-connections';
import { usePrompts } from '../data/prompts';
import { formErrors } from '../lib/field-errors';
import type { Org } from '../data/projects';
import { errorMessage } from '../rpc';
import { EMPTY_EVALUATOR, type EvaluatorFormValues, evaluatorValuesOf, toEvaluatorInput } from './evaluator-form';
import { EvaluatorRuns } from './EvaluatorRuns';
import { EvaluatorTest } from './EvaluatorTest';

const FORM_FIELDS = Object.keys(EMPTY_EVALUATOR) as (keyof EvaluatorFormValues)[];
/** The server names the judge's prompt `judge.prompt`; the form asks for it by name and label. */
const RENAMED = { prompt: 'promptName' } as const;
const { Field, TextArea, Choice, Check } = formFields<EvaluatorFormValues>('ev');

const KINDS = [
  { value: 'webhook', label: 'Webhook' },
  { value: 'llm-judge', label: 'LLM judge' },
] as const;
const { timeoutMs: TIMEOUT, retries: RETRIES, quietSeconds: QUIET, judgeDefaults } = EVALUATOR_LIMITS;

/** A categorical judge's categories, one input each. */
function CategoriesEditor({ categories, onChange, error }: { categories: string[]; onChange: (next: string[]) => void; error?: string }) {
  return (
    <fieldset className="categories" aria-describedby="ev-categories-msg">
      <legend>Categories</legend>
      {categories.map((category, i) => (
        <div key={i} className="category-row">
          <input
            aria-label={`Category ${i + 1}`}
            aria-invalid={!!error}
            value={category}
            onChange={(e) => onChange(categories.map((c, j) => (j === i ? e.target.value : c)))}
          />
          <button type="button" onClick={() => onChange(categories.filter((_, j) => j !== i))}>
            Remove <span className="visually-hidden">category {i + 1}</span>
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...categories, ''])}>
        Add category
      </button>
      <small id="ev-categories-msg" className={error ? 'error' : 'muted'}>
        {error ?? `The judge answers one of these (2 to ${EVALUATOR_LIMITS.judgeCategories}).`}
      </small>
    </fieldset>
  );
}

/** A judge's connection, model, prompt and score type, from the project's connections and prompt templates. */
function JudgeFields({
  projectId,
  initial,
  by,
  promptName,
  setPromptName,
  scoreType,
  setScoreType,
  categories,
  setCategories,
}: {
  projectId: string;
  initial: EvaluatorFormValues;
  by: Partial<Record<keyof EvaluatorFormValues, string>>;
  promptName: string;
  setPromptName: (name: string) => void;
  scoreType: JudgeScoreType;
  setScoreType: (type: JudgeScoreType) => void;
  categories: string[];
  setCategories: (next: string[]) => void;
}) {
  const connections = useLlmConnections(projectId).data ?? [];
  const prompts = usePrompts(projectId).data?.data ?? [];
  // A saved choice stays offered even when it is no longer listed (deleted, or beyond the first page).
  const promptNames = [...new Set([...prompts.map((p) => p.name), initial.promptName].filter(Boolean))];
  const labels = [...new Set([...(prompts.find((p) => p.name === promptName)?.labels ?? []), initial.promptLabel].filter(Boolean))];
  const connectionOptions = connections.map((c) => ({ value: c.id, label: c.name }));
  if (initial.connectionId && !connections.some((c) => c.id === initial.connectionId))
    connectionOptions.push({ value: initial.connectionId, label: 'deleted connection' });
  return (
    <fieldset className="form-group" aria-label="LLM judge">
      <legend>LLM judge</legend>
      <Choice
        name="connectionId"
        label="Connection"
        options={[{ value: '', label: 'Choose a connection' }, ...connectionOptions]}
        defaultValue={initial.connectionId}
        error={by.connectionId}
        hint={
          connections.length === 0 ? (
            <>
              None yet: add one in <Link to={`/p/${projectId}/settings/connections`}>LLM connections</Link>
            </>
          ) : undefined
        }
      />
      <Field
        name="model"
        label="Model"
        defaultValue={initial.model}
        error={by.model}
        hint="as the connection names it, e.g. gpt-4.1-mini"
      />
      <Choice
        name="promptName"
        label="Prompt template"
        options={[{ value: '', label: 'Choose a prompt' }, ...promptNames]}
        value={promptName}
        onChange={(e) => setPromptName(e.target.value)}
        error={by.promptName}
        hint="compiled with {{input}}, {{output}}, {{expectedOutput}}, {{metadata}}"
      />
      <Choice
        name="promptLabel"
        label="Prompt label (optional)"
        options={[{ value: '', label: 'default' }, ...labels]}
        defaultValue={initial.promptLabel}
        error={by.promptLabel}
        hint="default: production, else the newest version"
      />
      <Choice
        name="scoreType"
        label="Score type"
        options={JUDGE_SCORE_TYPES}
        value={scoreType}
        onChange={(e) => {
          const next = e.target.value as JudgeScoreType;
          setScoreType(next);
          if (next === 'categorical' && categories.length === 0) setCategories(['', '']);
        }}
        error={by.scoreType}
        hint={scoreType === 'numeric' ? '0 to 1' : scoreType === 'boolean' ? 'pass as 1, fail as 0' : undefined}
      />
      {scoreType === 'categorical' && <CategoriesEditor categories={categories} onChange={setCategories} error={by.categories} />}
    </fieldset>
  );
}

function EvaluatorForm({
  projectId,
  editing,
  onDone,
}: {
  projectId: string;
  editing: Evaluator | null;
  onDone: (secret: string | null) => void;
}) {
  const initial = editing ? evaluatorValuesOf(editing) : EMPTY_EVALUATOR;
  const formRef = useRef<HTMLFormElement>(null);
  const [kind, setKind] = useState<EvaluatorKind>(initial.kind);
  const [target, setTarget] = useState(initial.target);
  const [promptName, setPromptName] = useState(initial.promptName);
  const [scoreType, setScoreType] = useState(initial.scoreType);
  const [categories, setCategories] = useState(initial.categories);
  const [error, setError] = useState<string | null>(null);
  const save = useSaveEvaluator(projectId, editing);
  const { by, general } = formErrors(error, FORM_FIELDS, RENAMED);
  const judge = kind === 'llm-judge';

  const read = (form: HTMLFormElement): EvaluatorFormValues => {
    const f = new FormData(form);
    const text = (k: keyof EvaluatorFormValues) => String(f.get(k) ?? '');
    return {
      name: text('name'),
      kind,
      url: text('url'),
      headers: text('headers'),
      connectionId: text('connectionId'),
      model: text('model'),
      promptName,
      promptLabel: text('promptLabel'),
      scoreType,
      categories,
      target,
      quietSeconds: text('quietSeconds'),
      timeoutMs: text('timeoutMs'),
      retries: text('retries'),
      spanTypes: text('spanTypes'),
      names: text('names'),
      sampleRate: text('sampleRate'),
      enabled: f.get('enabled') === 'on',
    };
  };
  // An edit with the headers box left empty keeps the stored ones (they are never shown again).
  const keepsHeaders = (values: EvaluatorFormValues) => !!editing && values.headers.trim() === '';

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(null);
    const values = read(e.currentTarget);
    const input = toEvaluatorInput(values, { editing: !!editing, keepHeaders: keepsHeaders(values) });
    // A judge's calls are not signed: its signing secret means nothing to show.
    save.mutate(input, {
      onSuccess: (answer) => onDone(kind === 'webhook' ? answer.signingSecret : null),
      onError: (err) => setError(errorMessage(err)),
    });
  };

  /**
   * What a test runs: the form as it stands, as a whole configuration. A saved webhook whose
   * headers were not typed again is tested as saved, since its stored headers never come back here.
   */
  const testSubject = () => {
    const values = read(formRef.current!);
    if (editing && kind === 'webhook' && keepsHeaders(values) && Object.keys(editing.headers).length > 0)
      return { saved: true, subject: { evaluatorId: editing.id } };
    return { saved: false, subject: { config: toEvaluatorInput(values, { editing: false, keepHeaders: false }) } };
  };

  const defaults = judge ? judgeDefaults : { timeoutMs: TIMEOUT.default, retries: RETRIES.default };
  return (
    <form
      ref={formRef}
      onSubmit={submit}
      className="evaluator-form"
      aria-label={editing ? `Edit evaluator ${editing.name}` : 'Create an evaluator'}
      noValidate
    >
      <Field name="name" label="Name (the score name)" defaultValue={initial.name} error={by.name} required />
      <Choice
        name="kind"
        label="Kind"
        options={KINDS}
        value={kind}
        onChange={(e) => setKind(e.target.value as EvaluatorKind)}
        disabled={!!editing}
        error={by.kind}
        hint={editing ? 'fixed once created' : undefined}
      />
      <Choice
        name="target"
        label="Target"
        options={EVALUATOR_TARGETS}
        value={target}
        onChange={(e) => setTarget(e.target.value as typeof target)}
        error={by.target}
        hint={target === 'span' ? 'each span the filter selects' : 'each trace, once, when it is complete'}
      />
      {target === 'trace' && (
        <Field
          name="quietSeconds"
          label="Quiet seconds"
          type="number"
          defaultValue={initial.quietSeconds}
          error={by.quietSeconds}
          hint={`after the root span ended and nothing more arrived; ${QUIET.min} to ${QUIET.max}, default ${QUIET.default}`}
        />
      )}
      {judge ? (
        <JudgeFields
          projectId={projectId}
          initial={initial}
          by={by}
          promptName={promptName}
          setPromptName={setPromptName}
          scoreType={scoreType}
          setScoreType={setScoreType}
          categories={categories}
          setCategories={setCategories}
        />
      ) : (
        <fieldset className="form-group" aria-label="Webhook">
          <legend>Webhook</legend>
          <Field name="url" label="Webhook URL" defaultValue={initial.url} error={by.url} hint="HTTPS in production" required />
          <TextArea
            name="headers"
            label="Headers, one per line as Name: value"
            rows={2}
            defaultValue=""
            error={by.headers}
            hint={
              editing
                ? `Stored: ${Object.keys(editing.headers).join(', ') || 'none'}. Leave empty to keep them.`
                : 'Values are never shown again.'
            }
          />
        </fieldset>
      )}
      <Field
        name="timeoutMs"
        label="Time-out (ms)"
        type="number"
        defaultValue={initial.timeoutMs}
        error={by.timeoutMs}
        hint={`${TIMEOUT.min} to ${TIMEOUT.max}, default ${defaults.timeoutMs}`}
      />
      <Field
        name="retries"
        label="Retries"
        type="number"
        defaultValue={initial.retries}
        error={by.retries}
        hint={`${RETRIES.min} to ${RETRIES.max}, default ${defaults.retries}`}
      />
      {target === 'span' && (
        <Field name="spanTypes" label="Span types (comma-separated)" defaultValue={initial.spanTypes} error={by.spanTypes} />
      )}
      <Field
        name="names"
        label={`${target === 'span' ? 'Span' : 'Trace'} names (comma-separated, empty for any)`}
        defaultValue={initial.names}
        error={by.names}
      />
      <Field
        name="sampleRate"
        label="Sample rate"
        type="number"
        step="any"
        defaultValue={initial.sampleRate}
        error={by.sampleRate}
        hint="0 to 1, default 1"
      />
      <Check name="enabled" label="Enabled" defaultChecked={initial.enabled} error={by.enabled} />
      <FormErrors general={general} marked={Object.keys(by).length > 0} />
      <div className="form-actions">
        <button type="submit" disabled={save.isPending}>
          {editing ? 'Save changes' : 'Create evaluator'}
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
      {/* A new target starts a new test: on what the evaluator would score, without the other target's result. */}
      <EvaluatorTest key={target} projectId={projectId} defaultOn={target === 'trace' ? 'traceId' : 'spanId'} subject={testSubject} />
    </form>
  );
}

type Open = { id: null } | { id: string; tab: 'settings' | 'runs' };

/** A saved evaluator's tabs: its settings (owners and admins) and its run log (everyone). */
function EvaluatorPanel({
  projectId,
  evaluator,
  tab,
  manages,
  onTab,
  onDone,
}: {
  projectId: string;
  evaluator: Evaluator;
  tab: 'settings' | 'runs';
  manages: boolean;
  onTab: (tab: 'settings' | 'runs') => void;
  onDone: (secret: string | null) => void;
}) {
  const tabs = manages
    ? [
        { id: 'evaluator-settings', label: 'Settings' },
        { id: 'evaluator-runs', label: 'Runs' },
      ]
    : [{ id: 'evaluator-runs', label: 'Runs' }];
  const shown = manages ? tab : 'runs';
  return (
    <section className="evaluator-panel" aria-labelledby="evaluator-panel-title">
      <div className="page-head">
        <h2 id="evaluator-panel-title">
          {evaluator.name} <span className="muted">· {evaluator.kind === 'llm-judge' ? 'LLM judge' : 'webhook'}</span>
        </h2>
        <button type="button" onClick={() => onDone(null)}>
          Close
        </button>
      </div>
      <TabList
        label={`Evaluator ${evaluator.name}`}
        tabs={tabs}
        selected={`evaluator-${shown}`}
        onSelect={(id) => onTab(id === 'evaluator-runs' ? 'runs' : 'settings')}
      />
      <TabPanel id={`evaluator-${shown}`}>
        {shown === 'settings' ? (
          <EvaluatorForm projectId={projectId} editing={evaluator} onDone={onDone} />
        ) : (
          <EvaluatorRuns projectId={projectId} evaluator={evaluator} />
        )}
      </TabPanel>
    </section>
  );
}

export function Evaluators({ projectId, org }: { projectId: string; org: Org | null }) {
  // The server's rule for every change to an evaluator; until the role is read, nothing is offered.
  const manages = !!org && hasRole(org.role, ADMIN_ROLES);
  const { data, error } = useEvaluators(projectId);
  const [open, setOpen] = useState<Open | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = useRefreshEvaluators(projectId);
  const { toggle, rotate, remove } = useEvaluatorActions(projectId);
  const failure = toggle.error ?? rotate.error ?? remove.error ?? error;
  const evaluators = data ?? [];
  const opened = open?.id ? (evaluators.find((e) => e.id === open.id) ?? null) : null;
  const done = (s: string | null) => {
    setOpen(null);
    if (s) setSecret(s);
    refresh();
  };
  return (
    <div>
      {manages && !open && (
        <button type="button" onClick={() => setOpen({ id: null })}>
          New evaluator
        </button>
      )}
      {org && !manages && <p className="muted">Owners and admins create, edit and delete evaluators; you are a {org.role}.</p>}
      {open && open.id === null && <EvaluatorForm key="new" projectId={projectId} editing={null} onDone={done} />}
      {open && open.id !== null && opened && (
        <EvaluatorPanel
          key={opened.id}
          projectId={projectId}
          evaluator={opened}
          tab={open.tab}
          manages={manages}
          onTab={(tab) => setOpen({ id: opened.id, tab })}
          onDone={done}
        />
      )}
      <ErrorAlert error={failure} />
      {secret && (
        <Dialog title="Signing secret" onClose={() => setSecret(null)}>
          <p>Webhook calls are signed with this secret (Standard Webhooks). It is shown only now.</p>
          <p>
            <code data-testid="signing-secret">{secret}</code> <CopyButton value={secret} label="signing secret" />
          </p>
        </Dialog>
      )}
      <table className="plain">
        <caption>Evaluators</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Calls</th>
            <th scope="col">Target</th>
            <th scope="col">Sample rate</th>
            <th scope="col">Status</th>
            <ActionsHead />
          </tr>
        </thead>
        <tbody>
          {evaluators.map((e) => (
            <tr key={e.id} aria-selected={open?.id === e.id}>
              <td>{e.name}</td>
              <td>{e.kind === 'llm-judge' ? 'LLM judge' : 'webhook'}</td>
              <td>
                <code>{e.judge ? `${e.judge.model} · ${e.judge.prompt.name}` : e.url}</code>
              </td>
              <td>{e.target === 'trace' ? `trace, ${e.quietSeconds} s quiet` : `span: ${e.filter.spanTypes.join(', ')}`}</td>
              <td className="num">{e.filter.sampleRate}</td>
              <td>{e.enabled ? 'enabled' : 'disabled'}</td>
              <td className="actions">
                <button type="button" onClick={() => setOpen({ id: e.id, tab: 'runs' })}>
                  Runs <span className="visually-hidden">of {e.name}</span>
                </button>
                {manages && (
                  <>
                    <button type="button" onClick={() => setOpen({ id: e.id, tab: 'settings' })}>
                      Edit <span className="visually-hidden">{e.name}</span>
                    </button>
                    <button type="button" onClick={() => toggle.mutate(e)}>
                      {e.enabled ? 'Disable' : 'Enable'} <span className="visually-hidden">{e.name}</span>
                    </button>
                    {e.kind === 'webhook' && (
                      <button type="button" onClick={() => rotate.mutate(e, { onSuccess: (a) => setSecret(a.signingSecret) })}>
                        Rotate secret <span className="visually-hidden">of {e.name}</span>
                      </button>
                    )}
                    <ConfirmButton
                      label="Delete"
                      of={e.name}
                      question={`Delete the evaluator "${e.name}"?`}
                      onConfirm={() => remove.mutate(e, { onSuccess: () => open?.id === e.id && setOpen(null) })}
                    />
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
