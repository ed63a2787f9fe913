import {
  BUILT_IN_PRICES,
  EVAL_RUN_REASONS,
  type EvaluationTarget,
  type JudgeSettings,
  PriceTable,
  compileJudgePrompt,
  judgeInputOf,
  judgeCallRecord,
  judgeRequestBody,
  judgeScore,
  targetIds,
  templateUsesOutput,
} from '@app/domain';
import {
  type EvalRunRecord,
  type ExpectedOutputs,
  type LlmConnectionStore,
  type PromptTemplateStore,
  SecretBoxError,
} from '@app/persistence';
import type { JudgeCaller } from './judge-caller';
import type { SettledRun } from './settled-run';

/** The built-in price table (libs/domain/src/pricing): a judge's call is priced by it. */
const PRICES = new PriceTable(BUILT_IN_PRICES);

/** A judge evaluator as a run reads it. */
export interface JudgeToRun {
  projectId: string;
  judge: JudgeSettings;
  /** The connection's base URL. */
  baseUrl: string;
  timeoutMs: number;
  retries: number;
}

const failedBefore = (reason: EvalRunRecord['reason'], error: string): SettledRun => ({
  record: { status: 'failed', score: null, category: null, pass: null, comment: null, reason, error, attempts: 0, judge: null },
  score: null,
});

/**
 * One LLM judge evaluation (issue 29): the connection's secrets, the project's prompt compiled
 * with the target's (a span's or a trace's) input, output and metadata and the expected output
 * of the dataset item linked to it (looked up now, as the job runs), the call, and its reply read
 * into a score, or a failed run with the reason and no score. Never throws for what the
 * evaluator's configuration or the endpoint does; rejects only when `signal` aborts.
 */
export async function evaluateWithJudge(
  deps: {
    connections: LlmConnectionStore;
    prompts: PromptTemplateStore;
    expectedOutputs: ExpectedOutputs;
    caller: JudgeCaller;
    store: <T>(work: () => Promise<T>) => Promise<T>;
  },
  run: JudgeToRun,
  target: EvaluationTarget,
  signal?: AbortSignal,
): Promise<SettledRun> {
  const { judge } = run;
  let secrets;
  try {
    secrets = await deps.store(() => deps.connections.secrets(judge.connectionId));
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    return failedBefore(EVAL_RUN_REASONS.secretsUnreadable, `the LLM connection's API key or headers cannot be read: ${err.message}`);
  }
  if (!secrets)
    return failedBefore(EVAL_RUN_REASONS.connectionMissing, `the judge's LLM connection ${judge.connectionId} no longer exists`);
  const pick = judge.prompt.label === null ? { by: 'default' as const } : { by: 'label' as const, label: judge.prompt.label };
  const resolved = await deps.store(() => deps.prompts.resolve(run.projectId, judge.prompt.name, pick));
  const which = `"${judge.prompt.name}"${judge.prompt.label === null ? '' : ` with label ${judge.prompt.label}`}`;
  if (!resolved) return failedBefore(EVAL_RUN_REASONS.promptMissing, `the project has no prompt template ${which}`);
  const template = resolved.version.template;
  if (!templateUsesOutput(template))
    return failedBefore(
      EVAL_RUN_REASONS.promptWithoutOutput,
      `prompt template ${which} version ${resolved.version.version} has no {{output}}`,
    );
  const expectedOutput = await deps.store(() => deps.expectedOutputs.of(run.projectId, targetIds(target)));
  const body = judgeRequestBody(judge, compileJudgePrompt(template, judgeInputOf(target, expectedOutput)));
  const { outcome, attempts } = await deps.caller.call(
    { baseUrl: run.baseUrl, timeoutMs: run.timeoutMs, retries: run.retries, secrets, judge, body },
    signal,
  );
  const cost = judgeCallRecord(outcome.usage, judge.model, Date.now(), PRICES);
  if (!outcome.ok) {
    return {
      record: {
        status: 'failed',
        score: null,
        category: null,
        pass: null,
        comment: null,
        reason: outcome.reason,
        error: outcome.error,
        attempts,
        judge: cost,
      },
      score: null,
    };
  }
  const { score } = outcome;
  return {
    record: {
      status: 'done',
      score: score.dataType === 'NUMERIC' ? score.value : null,
      category: score.dataType === 'CATEGORICAL' ? score.value : null,
      pass: score.pass,
      comment: score.reasoning,
      reason: null,
      error: null,
      attempts,
      judge: cost,
    },
    score: judgeScore(score, cost.model),
  };
}
