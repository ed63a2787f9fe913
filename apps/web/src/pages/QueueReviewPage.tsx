import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorAlert } from '../components/ErrorAlert';
import { ScoreTable } from '../components/HandScores';
import { InputOutput } from '../components/conversation/InputOutput';
import { type QueueItem, useAnnotationQueue, useReviewActions } from '../data/annotation-queues';
import { keys } from '../data/query-keys';
import { type ScoreConfig, useHandScoreActions } from '../data/scores';
import { useTrace } from '../data/traces';
import { formatTime } from '../lib/format';
import { errorMessage, rpc } from '../rpc';
import { configRange } from '../settings/ScoreConfigs';

/** The value a config's input holds as text, as the score is sent: a number, a category's label, or true/false. */
function scoreValue(raw: string, config: ScoreConfig): number | string | boolean {
  switch (config.dataType) {
    case 'NUMERIC':
      return Number.isFinite(Number(raw)) ? Number(raw) : raw;
    case 'CATEGORICAL':
      return raw;
    case 'BOOLEAN':
      return raw === 'true';
  }
}

const inputId = (index: number) => `review-config-${index + 1}`;
const COMMENT_ID = 'review-comment';

/** A config's input; empty gives no score. A number key (1..9) focuses it. */
function ConfigInput({
  config,
  index,
  value,
  onChange,
}: {
  config: ScoreConfig;
  index: number;
  value: string;
  onChange: (v: string) => void;
}) {
  const id = inputId(index);
  const options = config.dataType === 'BOOLEAN' ? ['true', 'false'] : config.categories.map((c) => c.label);
  return (
    <div className="field">
      <label htmlFor={id}>
        <kbd>{index + 1}</kbd> {config.name}
      </label>
      {config.dataType === 'NUMERIC' ? (
        <input
          id={id}
          type="number"
          step="any"
          min={config.minValue ?? undefined}
          max={config.maxValue ?? undefined}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">–</option>
          {options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      )}
      <small className="muted">{configRange(config)}</small>
    </div>
  );
}

/** What the item is: its trace's conversation as the trace view shows it, and the span's for a span item. */
function ItemContent({ projectId, item }: { projectId: string; item: QueueItem }) {
  const trace = useTrace(projectId, item.traceId);
  const span = useQuery({
    queryKey: keys.traces.span(projectId, item.traceId, item.spanId ?? undefined),
    queryFn: () => rpc.trace.span.query({ projectId, traceId: item.traceId, spanId: item.spanId ?? '' }),
    enabled: item.spanId !== null,
  });
  if (trace.isLoading) return <p role="status">Loading the trace…</p>;
  if (trace.error || !trace.data)
    return <ErrorAlert error={trace.error ?? new Error('This trace is gone (deleted by retention?): skip it.')} />;
  const t = trace.data;
  const itemScores = t.scores.filter((s) => (s.spanId ?? null) === item.spanId);
  return (
    <>
      <h2>
        {t.name ?? 'Unnamed trace'}{' '}
        <small>
          <Link to={`/p/${projectId}/traces/${t.id}`} target="_blank">
            Open the trace
          </Link>
        </small>
      </h2>
      <p className="muted">
        {formatTime(t.timestamp)}
        {item.status !== 'pending' && ` · ${item.status}${item.completedByEmail ? ` by ${item.completedByEmail}` : ''}`}
      </p>
      {span.data ? (
        <>
          <h3>Span {span.data.name}</h3>
          <InputOutput input={span.data.input} output={span.data.output} scope="Span" />
        </>
      ) : (
        <InputOutput input={t.input} output={t.output} scope="Trace" />
      )}
      <ScoreTable projectId={projectId} scores={itemScores} caption={item.spanId ? 'Span scores' : 'Trace scores'} compact />
    </>
  );
}

const SHORTCUTS: [string, string][] = [
  ['1–9', 'score config'],
  ['c', 'comment'],
  ['Enter', 'complete (Ctrl+Enter in the comment)'],
  ['s', 'skip'],
  ['n', 'next'],
  ['p', 'previous'],
  ['Esc', 'leave a field'],
];

/**
 * A reviewer's view of a queue (issue 30): one item at a time, locked to them while they look;
 * every action has a key, so a queue is worked through without the mouse.
 */
export function QueueReviewPage() {
  const { projectId = '', queueId = '' } = useParams();
  const queue = useAnnotationQueue(projectId, queueId);
  const { move, finish } = useReviewActions(projectId, queueId);
  const { create } = useHandScoreActions(projectId);
  const queries = useQueryClient();
  const [item, setItem] = useState<QueueItem | null | undefined>(undefined);
  const [values, setValues] = useState<Record<string, string>>({});
  const [comment, setComment] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const configs = queue.data?.configs ?? [];
  const progress = queue.data?.progress;

  const show = (next: QueueItem | null) => {
    setItem(next);
    setValues({});
    setComment('');
    (document.activeElement as HTMLElement | null)?.blur();
    void queries.invalidateQueries({ queryKey: keys.annotationQueues.one(projectId, queueId) });
  };
  /** One step at a time: a key pressed while a step runs is ignored, so an item is never completed twice. */
  const running = useRef(false);
  const step = async (run: () => Promise<void>) => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      await run();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  /** Moving without finishing keeps the item when no other one is free. */
  const go = (previous: boolean) =>
    step(async () => {
      const { item: next } = await move.mutateAsync({ afterItemId: item?.id, previous });
      if (next) show(next);
      else setNote(previous ? 'No earlier item is free.' : 'No other item is free.');
    });
  const done = (skip: boolean) =>
    step(async () => {
      if (!item) return;
      if (!skip) {
        for (const config of configs) {
          const raw = values[config.id];
          if (raw === undefined || raw === '') continue;
          try {
            await create.mutateAsync({
              traceId: item.traceId,
              spanId: item.spanId ?? undefined,
              configId: config.id,
              value: scoreValue(raw, config),
              comment,
            });
          } catch (err) {
            throw new Error(`${config.name}: ${errorMessage(err)}`);
          }
        }
      }
      await finish.mutateAsync({ itemId: item.id, skip });
      show((await move.mutateAsync({ afterItemId: item.id })).item);
    });

  // The first item: the one the reviewer holds, or the first free one.
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    move.mutate({}, { onSuccess: ({ item: first }) => setItem(first), onError: (err) => setError(errorMessage(err)) });
  }, [move]);

  const keysRef = useRef<(e: KeyboardEvent) => void>(() => undefined);
  keysRef.current = (e: KeyboardEvent) => {
    if (e.altKey || (e.metaKey && e.key !== 'Enter') || (e.ctrlKey && e.key !== 'Enter')) return;
    const target = e.target as HTMLElement;
    const inField = target.matches('input, textarea, select');
    if (e.key === 'Escape' && inField) return target.blur();
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey || !target.matches('textarea, button, a'))) {
      e.preventDefault();
      return void done(false);
    }
    if (inField) return;
    const index = Number(e.key) - 1;
    if (Number.isInteger(index) && index >= 0 && index < configs.length) {
      e.preventDefault();
      document.getElementById(inputId(index))?.focus();
      return;
    }
    const action: Record<string, () => void> = {
      n: () => void go(false),
      p: () => void go(true),
      s: () => void done(true),
      c: () => document.getElementById(COMMENT_ID)?.focus(),
    };
    if (action[e.key]) {
      e.preventDefault();
      action[e.key]?.();
    }
  };
  useEffect(() => {
    const listener = (e: KeyboardEvent) => keysRef.current(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  if (queue.isLoading) return <p role="status">Loading the queue…</p>;
  if (queue.error || !queue.data) return <ErrorAlert error={queue.error} />;
  return (
    <article aria-labelledby="review-title" className="review">
      <p>
        <Link to={`/p/${projectId}/queues`}>← All queues</Link>
      </p>
      <div className="page-head">
        <h1 id="review-title">{queue.data.name}</h1>
        {progress && (
          <p className="review-progress" data-testid="review-progress">
            <strong>
              {progress.completed}/{progress.total}
            </strong>{' '}
            completed · {progress.pending} pending · {progress.skipped} skipped
            {progress.reviewers.length > 0 && ` · ${progress.reviewers.map((r) => `${r.email} ${r.completed}`).join(', ')}`}
          </p>
        )}
      </div>
      {queue.data.description && <p className="muted">{queue.data.description}</p>}
      <ul className="shortcuts" aria-label="Keyboard shortcuts">
        {SHORTCUTS.map(([key, what]) => (
          <li key={key}>
            <kbd>{key}</kbd> {what}
          </li>
        ))}
      </ul>
      {error && <p role="alert">{error}</p>}
      {note && <p role="status">{note}</p>}
      {item === undefined && !error && <p role="status">Taking the next item…</p>}
      {item === null && (
        <p role="status" data-testid="queue-empty">
          {progress && progress.pending > 0
            ? `Nothing free for you: the ${progress.pending} pending item(s) are held by other reviewers. Try again in a few minutes.`
            : 'Nothing left to review in this queue.'}
        </p>
      )}
      {item && (
        <div className="review-body">
          <section aria-label="Item to review" className="review-item" data-testid="queue-item" data-trace-id={item.traceId}>
            <ItemContent key={item.id} projectId={projectId} item={item} />
          </section>
          <section aria-labelledby="review-scores-title" className="review-scores">
            <h2 id="review-scores-title">Your scores</h2>
            {!configs.length && <p className="muted">This queue asks for no score: complete or skip.</p>}
            {configs.map((config, index) => (
              <ConfigInput
                key={config.id}
                config={config}
                index={index}
                value={values[config.id] ?? ''}
                onChange={(v) => setValues({ ...values, [config.id]: v })}
              />
            ))}
            <div className="field">
              <label htmlFor={COMMENT_ID}>
                <kbd>c</kbd> Comment (goes with each score)
              </label>
              <textarea id={COMMENT_ID} rows={3} value={comment} onChange={(e) => setComment(e.target.value)} />
            </div>
            <div className="actions">
              <button type="button" onClick={() => void go(true)} disabled={busy}>
                Previous <kbd>p</kbd>
              </button>
              <button type="button" onClick={() => void done(true)} disabled={busy}>
                Skip <kbd>s</kbd>
              </button>
              <button type="button" onClick={() => void go(false)} disabled={busy}>
                Next <kbd>n</kbd>
              </button>
              <button type="button" className="primary" onClick={() => void done(false)} disabled={busy}>
                Complete <kbd>Enter</kbd>
              </button>
            </div>
          </section>
        </div>
      )}
    </article>
  );
}
