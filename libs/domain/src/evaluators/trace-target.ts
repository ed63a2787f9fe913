import { SPANLOG_NAMESPACE, uuidV5 } from '../ids';
import type { JsonObject, JsonValue } from '../json/types';
import { EVALUATOR_LIMITS } from '../limits';
import type { EvaluatorFilter, EvaluatorSettings } from './evaluator';
import { type EvaluatedSpan, type WebhookRequestBody, asText, webhookRequestBody } from './webhook';

/** One span of an evaluated trace, as its payload summarizes it (no input or output: those of the trace are sent). */
export interface TraceSpanSummary {
  id: string;
  parentId: string | null;
  name: string | null;
  type: string | null;
  model: string | null;
  startTime: string | null;
  endTime: string | null;
  level: string | null;
  statusMessage: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  cost: number | null;
}

/** A complete trace as an evaluation sees it: its fields, its timings and totals, and its spans summarized. */
export interface EvaluatedTrace {
  id: string;
  name: string | null;
  /** The trace's input, or its root span's when the trace has none (an OTLP trace's is its root span's). */
  input: JsonValue | null;
  output: JsonValue | null;
  metadata: JsonObject | null;
  tags: string[];
  userId: string | null;
  sessionId: string | null;
  environment: string | null;
  release: string | null;
  version: string | null;
  timestamp: string;
  /** Earliest span start and latest span end, and the time between them. */
  startTime: string | null;
  endTime: string | null;
  latencyMs: number | null;
  spanCount: number;
  totalTokens: number;
  totalCost: number;
  /** The earliest started spans, up to `EVALUATOR_LIMITS.traceSpansInPayload`. */
  spans: TraceSpanSummary[];
  /** Spans beyond those summarized. */
  spansLeftOut: number;
}

/** A span as an evaluation scores it: its ids, input and output, and its metadata (a judge's `{{metadata}}`). */
export type SpanTarget = { kind: 'span'; metadata: JsonValue | null } & EvaluatedSpan;

/**
 * What an evaluation scores, whatever the evaluator's kind: a span or a complete trace. A
 * webhook gets it as its request body (`evaluationRequestBody`); a judge reads its input,
 * output and metadata (`judgeInputOf`).
 */
export type EvaluationTarget = SpanTarget | { kind: 'trace'; trace: EvaluatedTrace };

/** The webhook body for a trace: SPEC 6.1's fields (no span id; input and output the trace's), and the trace itself. */
export interface TraceWebhookRequestBody extends Omit<WebhookRequestBody, 'spanId'> {
  spanId: null;
  target: 'trace';
  trace: Omit<EvaluatedTrace, 'input' | 'output'>;
}

/** What an evaluation's webhook receives: SPEC 6.1's body for a span, the trace's for a trace. */
export type EvaluationRequestBody = WebhookRequestBody | TraceWebhookRequestBody;

type EvaluatorInPayload = Omit<EvaluatorSettings, 'headers'> & { id: string };

/** The request body of an evaluation of `target`: SPEC 6.1's for a span, the same fields and the trace for a trace. */
export function evaluationRequestBody(target: EvaluationTarget, evaluator: EvaluatorInPayload): EvaluationRequestBody {
  if (target.kind === 'span') return webhookRequestBody(target, evaluator);
  const { input, output, ...trace } = target.trace;
  const { names, sampleRate, tags, environments } = evaluator.filter;
  return {
    traceId: trace.id,
    spanId: null,
    input: asText(input),
    output: asText(output),
    metadata: {
      id: evaluator.id,
      name: evaluator.name,
      url: evaluator.url,
      timeoutMs: evaluator.timeoutMs,
      retries: evaluator.retries,
      target: 'trace',
      quietSeconds: evaluator.quietSeconds,
      filter: { names, sampleRate, tags, environments },
    },
    expectedOutput: null,
    target: 'trace',
    trace,
  };
}

/** The ids a target's score is stored under. */
export const targetIds = (target: EvaluationTarget): { traceId: string; spanId: string | null } =>
  target.kind === 'span' ? { traceId: target.traceId, spanId: target.spanId } : { traceId: target.trace.id, spanId: null };

/**
 * The id of the score a job writes. A span is evaluated once, so its job's id serves. A trace
 * may be evaluated twice (late data): both runs write one id, fixed per evaluator and trace, so
 * the newer result replaces the older and reads, rebuilds and verify see one score.
 */
export const evaluationScoreId = (jobId: string, evaluatorId: string, target: EvaluationTarget): string =>
  target.kind === 'span' ? jobId : uuidV5(`trace-evaluation:${evaluatorId}:${target.trace.id}`, SPANLOG_NAMESPACE);

/** The trace fields a trace target's filter reads. */
export interface FilteredTrace {
  name: string | null;
  tags: string[] | null;
  environment: string | null;
}

/**
 * Whether a trace target's filter takes a trace in, before its sample: its name among `names`,
 * one of its tags among `tags`, its environment among `environments` (each empty = any). Span
 * types do not apply.
 */
export function traceInFilter(filter: EvaluatorFilter, trace: FilteredTrace): boolean {
  const anyOf = (wanted: string[] | undefined, has: (value: string) => boolean) => !wanted?.length || wanted.some(has);
  return (
    anyOf(filter.names, (n) => n === trace.name) &&
    anyOf(filter.tags, (t) => (trace.tags ?? []).includes(t)) &&
    anyOf(filter.environments, (e) => e === trace.environment)
  );
}

/**
 * Whether a trace target's filter selects a trace: taken in (`traceInFilter`) and its place in
 * the sample (`sample`, fixed in [0, 1) per evaluator and trace) below `sampleRate`.
 */
export const traceMatchesFilter = (filter: EvaluatorFilter, trace: FilteredTrace, sample: number): boolean =>
  traceInFilter(filter, trace) && sample < filter.sampleRate;

/** A pending trace evaluation found due, with what decides it. */
export interface DueTraceEvaluation {
  /** Jobs made for this evaluator and trace so far. */
  runs: number;
  /** The evaluator still exists, is enabled and targets traces. */
  evaluatorActive: boolean;
  /** The trace still exists (retention may have deleted it). */
  traceFound: boolean;
  /** Every span without a parent has ended, and there is at least one. */
  rootEnded: boolean;
  /** The filter takes the trace in (`traceInFilter`). */
  inFilter: boolean;
  /** The sample selects the trace. */
  sampled: boolean;
}

export type DueDecision =
  /** Make job `run` (1 or 2). */
  | { kind: 'run'; run: number }
  /** Disarm, keeping the row: later data of the trace may arm it again. */
  | { kind: 'rest'; reason: string }
  /** Remove the row: nothing can make it run. */
  | { kind: 'drop'; reason: string }
  /**
   * Record run `run` as skipped (sampled out) in the run log, as a sampled-out span is, and
   * disarm without using the run: the sample is fixed per trace, so a re-arm records nothing more.
   */
  | { kind: 'sampled-out'; run: number };

/**
 * What a due trace evaluation comes to. At most `EVALUATOR_LIMITS.traceRuns` jobs per evaluator
 * and trace: the first once the trace is quiet, one more after late data; a trace the filter
 * leaves out, or of a disabled evaluator, waits for data that may change that; one the sample
 * leaves out is logged as a skipped run.
 */
export function decideDueTraceEvaluation(due: DueTraceEvaluation): DueDecision {
  if (!due.traceFound) return { kind: 'drop', reason: 'the trace no longer exists' };
  if (due.runs >= EVALUATOR_LIMITS.traceRuns) return { kind: 'rest', reason: 'evaluated as often as a trace is' };
  if (!due.evaluatorActive) return { kind: 'rest', reason: 'the evaluator is disabled or no longer targets traces' };
  if (!due.rootEnded) return { kind: 'rest', reason: 'the root span has not ended' };
  if (!due.inFilter) return { kind: 'rest', reason: "the evaluator's filter leaves the trace out" };
  if (!due.sampled) return { kind: 'sampled-out', run: due.runs + 1 };
  return { kind: 'run', run: due.runs + 1 };
}

/**
 * When a write of trace data arms its evaluation, in seconds from the write: the quiet window
 * once the root span has ended and runs remain; null (not armed) otherwise. Every write of the
 * trace arms it again, so it comes due `quietSeconds` after the last one.
 */
export const traceEvaluationDelaySeconds = (rootEnded: boolean, runs: number, quietSeconds: number): number | null =>
  rootEnded && runs < EVALUATOR_LIMITS.traceRuns ? quietSeconds : null;
