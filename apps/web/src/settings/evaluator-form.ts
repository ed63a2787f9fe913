/** The evaluator form's fields as the RPC takes them, and how a saved evaluator reads in it. Pure. */
import type { EvaluatorKind, EvaluatorTarget, JudgeScoreType } from '@app/domain/evaluators/evaluator';
import { headersFromLines } from './header-lines';

export interface EvaluatorFormValues {
  name: string;
  kind: EvaluatorKind;
  /** Webhooks. */
  url: string;
  headers: string;
  /** Judges. */
  connectionId: string;
  model: string;
  promptName: string;
  /** Empty: the prompt's default pick (`production`, else the newest version). */
  promptLabel: string;
  scoreType: JudgeScoreType;
  categories: string[];
  /** Both kinds. */
  target: EvaluatorTarget;
  quietSeconds: string;
  timeoutMs: string;
  retries: string;
  spanTypes: string;
  names: string;
  sampleRate: string;
  enabled: boolean;
}

export const EMPTY_EVALUATOR: EvaluatorFormValues = {
  name: '',
  kind: 'webhook',
  url: '',
  headers: '',
  connectionId: '',
  model: '',
  promptName: '',
  promptLabel: '',
  scoreType: 'numeric',
  categories: [],
  target: 'span',
  quietSeconds: '',
  timeoutMs: '',
  retries: '',
  spanTypes: 'LLM',
  names: '',
  sampleRate: '',
  enabled: true,
};

/** What the form needs of a saved evaluator (as `evaluator.list` answers it). */
export interface SavedEvaluator {
  name: string;
  kind: EvaluatorKind;
  url: string | null;
  judge: {
    connectionId: string;
    model: string;
    prompt: { name: string; label: string | null };
    scoreType: JudgeScoreType;
    categories: string[];
  } | null;
  target: EvaluatorTarget;
  quietSeconds: number;
  timeoutMs: number;
  retries: number;
  filter: { spanTypes: string[]; names: string[]; sampleRate: number };
  enabled: boolean;
}

/** A saved evaluator in the form; secrets (webhook headers) are never shown back, so that box starts empty. */
export const evaluatorValuesOf = (e: SavedEvaluator): EvaluatorFormValues => ({
  name: e.name,
  kind: e.kind,
  url: e.url ?? '',
  headers: '',
  connectionId: e.judge?.connectionId ?? '',
  model: e.judge?.model ?? '',
  promptName: e.judge?.prompt.name ?? '',
  promptLabel: e.judge?.prompt.label ?? '',
  scoreType: e.judge?.scoreType ?? 'numeric',
  categories: e.judge?.categories ?? [],
  target: e.target,
  quietSeconds: String(e.quietSeconds),
  timeoutMs: String(e.timeoutMs),
  retries: String(e.retries),
  spanTypes: e.filter.spanTypes.join(', '),
  names: e.filter.names.join(', '),
  sampleRate: String(e.filter.sampleRate),
  enabled: e.enabled,
});

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The fields to send. A blank number stays out so the server's default applies (a judge's are
 * not a webhook's); anything else is sent as typed, so that the server's checks (which live on
 * the server alone) decide and name the field. `editing` leaves out `kind`, which an update
 * cannot change; `keepHeaders` leaves out a webhook's headers, so the stored ones stay.
 * A span target hides the quiet window and a trace target the span types: what is hidden is
 * not sent, and keeps its stored value.
 */
export function toEvaluatorInput(v: EvaluatorFormValues, { editing, keepHeaders }: { editing: boolean; keepHeaders: boolean }) {
  const num = (s: string) => (s.trim() === '' ? undefined : Number(s));
  const categories = v.categories.map((c) => c.trim()).filter(Boolean);
  const kindFields =
    v.kind === 'webhook'
      ? { url: v.url, ...(keepHeaders ? {} : { headers: headersFromLines(v.headers) }) }
      : {
          judge: {
            connectionId: v.connectionId,
            model: v.model,
            prompt: { name: v.promptName, ...(v.promptLabel ? { label: v.promptLabel } : {}) },
            scoreType: v.scoreType,
            ...(v.scoreType === 'categorical' ? { categories } : {}),
          },
        };
  const trace = v.target === 'trace';
  return {
    name: v.name,
    ...(editing ? {} : { kind: v.kind }),
    ...kindFields,
    target: v.target,
    ...(trace ? { quietSeconds: num(v.quietSeconds) } : {}),
    timeoutMs: num(v.timeoutMs),
    retries: num(v.retries),
    filter: { ...(trace ? {} : { spanTypes: list(v.spanTypes) }), names: list(v.names), sampleRate: num(v.sampleRate) },
    enabled: v.enabled,
  };
}
