import {
  EVAL_RUN_REASONS,
  type Evaluation,
  type EvaluationScore,
  type ScoreConfigsByName,
  evaluatorScoreRefusal,
  webhookScore,
} from '@app/domain';
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

/**
 * A run whose score the config of the evaluator's name (issue 30) refuses, whichever kind gave
 * it: failed, with no score, and its error says why; a run it takes, or one without a score, as
 * it is. A real run and a test run (`evaluator.test`) both go through here, so they agree.
 */
export function settledAgainstConfigs(settled: SettledRun, evaluatorName: string, configs: ScoreConfigsByName): SettledRun {
  const refusal = settled.score && evaluatorScoreRefusal(evaluatorName, settled.score, configs);
  if (!refusal) return settled;
  return {
    score: null,
    record: {
      ...settled.record,
      status: 'failed',
      score: null,
      category: null,
      pass: null,
      reason: EVAL_RUN_REASONS.scoreRefused,
      error: refusal,
    },
  };
}
