import { EVAL_RUN_REASONS, type Evaluation, type EvaluationScore, webhookScore } from '@app/domain';
import type { EvalRunRecord } from '@app/persistence';

/** How a run ended: what to record, and the score to write when there is one. */
export interface SettledRun {
  record: EvalRunRecord;
  score: EvaluationScore | null;
}

/**
 * A webhook's run (SPEC 6.1): an error result is a failed run that still writes its score 0
 * and fail (rule 2), marked as an error (`webhookScore`).
 */
export function settledWebhookRun(evaluation: Evaluation & { attempts: number }): SettledRun {
  const { result, verdict, attempts } = evaluation;
  const error = verdict === 'error';
  return {
    record: {
      status: error ? 'failed' : 'done',
      score: result.score,
      category: null,
      pass: result.pass,
      comment: result.reason,
      reason: error ? EVAL_RUN_REASONS.webhookError : null,
      error: error ? result.reason : null,
      attempts,
      judge: null,
    },
    score: webhookScore(evaluation),
  };
}
