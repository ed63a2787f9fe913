import type { JsonObject } from '../json/types';
import type { JudgeScore } from './judge';
import type { Evaluation } from './webhook';

/** An evaluation run's status in the run log (issue 29). */
export const EVAL_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'skipped'] as const;
export type EvalRunStatus = (typeof EVAL_RUN_STATUSES)[number];

/**
 * Why a run was skipped or failed, in a few stable words a client can filter and count on; the
 * details go in the run's `error`.
 */
export const EVAL_RUN_REASONS = {
  sampledOut: 'sampled out',
  quotaReached: 'quota reached',
  evaluatorDisabled: 'evaluator disabled',
  spanDeleted: 'span deleted',
  traceDeleted: 'trace deleted',
  organizationDeleted: 'organization deleted',
  connectionMissing: 'connection missing',
  promptMissing: 'prompt missing',
  promptWithoutOutput: 'prompt without {{output}}',
  secretsUnreadable: 'secrets unreadable',
  callFailed: 'call failed',
  replyUnreadable: 'judge reply unreadable',
  webhookError: 'webhook error',
  scoreRefused: 'score refused by its config',
} as const;
export type EvalRunReason = (typeof EVAL_RUN_REASONS)[keyof typeof EVAL_RUN_REASONS];

/** The `eval_jobs` statuses, as the run log names them: a job published but not claimed is still queued. */
export const EVAL_JOB_STATUSES_OF_RUN: Record<EvalRunStatus, readonly string[]> = {
  queued: ['queued', 'published'],
  running: ['running'],
  succeeded: ['done'],
  failed: ['failed'],
  skipped: ['skipped'],
};

export function evalRunStatusOf(jobStatus: string): EvalRunStatus {
  const found = EVAL_RUN_STATUSES.find((s) => EVAL_JOB_STATUSES_OF_RUN[s].includes(jobStatus));
  if (!found) throw new Error(`unknown eval job status ${jobStatus}`);
  return found;
}

/** What a judge's own call cost: recorded on its run. */
export interface JudgeCallRecord {
  model: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** USD by the built-in price table; null when it has no price for the model or the tokens are unknown. */
  cost: number | null;
}

/** One run of an evaluator on one span, or on a trace (a trace-target evaluator), as `evaluator.runs` lists it. */
export interface EvalRun {
  id: string;
  traceId: string;
  /** Null for a run on a trace. */
  spanId: string | null;
  status: EvalRunStatus;
  reason: EvalRunReason | null;
  error: string | null;
  attempts: number;
  /** The score written: a number, or a judge's category; null when none was. */
  score: number | string | null;
  pass: boolean | null;
  comment: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  judge: JudgeCallRecord | null;
}

/** The outcome a run counts as in the metrics (`spanlog_evaluator_runs_total{kind, outcome}`). */
export type EvalRunOutcome = Exclude<EvalRunStatus, 'queued' | 'running'>;

/** A run's result as the score it writes (source EVAL, name = the evaluator's). */
export interface EvaluationScore {
  value: number | string;
  dataType: 'NUMERIC' | 'CATEGORICAL';
  comment: string | null;
  metadata: JsonObject;
}

/**
 * A webhook's score (CONTRACT "Webhook evaluators": the pass flag in the metadata). An error
 * result (SPEC 6.1 rule 2: score 0 and fail, no valid answer) is marked `error: true`, so that
 * means, monitors and routing can leave out what no endpoint said.
 */
export function webhookScore({ verdict, result }: Evaluation): EvaluationScore {
  return {
    value: result.score,
    dataType: 'NUMERIC',
    comment: result.reason,
    metadata: { ...(result.metadata ?? {}), pass: result.pass, ...(verdict === 'error' && { error: true }) },
  };
}

/** A judge's score: the reasoning as its comment; the pass flag of a boolean judge, and the model that judged, in its metadata. */
export function judgeScore(score: JudgeScore, model: string | null): EvaluationScore {
  return {
    value: score.value,
    dataType: score.dataType,
    comment: score.reasoning,
    metadata: { ...(score.pass !== null && { pass: score.pass }), ...(model !== null && { judgeModel: model }) },
  };
}
