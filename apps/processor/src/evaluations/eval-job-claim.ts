import type { DataSource, EntityManager } from 'typeorm';
import {
  EVAL_RUN_REASONS,
  type EvalRunReason,
  type EvaluationTarget,
  type EvaluatorKind,
  type EvaluatorSettings,
  evalDeferralDelayMs,
  evalRunQuotaDecision,
  storedFilter,
  utcMonthOf,
} from '@app/domain';
import { type EvalJobToClaim, type EvalRunRecord, EvalJobs, TraceEvaluations, UsageOutbox } from '@app/persistence';

/** A job cleared to run: what the call needs, but its evaluator's secrets (EvaluatorStore.secrets, LlmConnectionStore.secrets). */
export interface EvaluationToRun {
  jobId: string;
  orgId: string;
  projectId: string;
  /** `url`: the webhook's, or the judge's connection's base URL. */
  evaluator: Omit<EvaluatorSettings, 'headers' | 'url'> & { id: string; url: string };
  /**
   * The span, or the complete trace of a trace-target evaluator, as its evaluation reads it: a
   * webhook gets it as its request body, a judge its input, output and metadata.
   */
  target: EvaluationTarget;
}

export type ClaimedJob =
  | { kind: 'run'; run: EvaluationToRun }
  | { kind: 'skipped'; reason: EvalRunReason; error: string | null; evaluatorKind: EvaluatorKind }
  /** It cannot run at all (its judge's connection is gone): recorded as failed, not counted. */
  | { kind: 'failed'; reason: EvalRunReason; error: string; evaluatorKind: EvaluatorKind }
  | { kind: 'finished' }
  /** Its URL had no room (`admit` said no): back in the queue for `delayMs`. */
  | { kind: 'deferred'; delayMs: number };

/**
 * Decides whether a job runs, and if so marks it running, under a lock per organization so
 * that concurrent jobs of one organization cannot overrun its eval quota (CONTRACT "Quotas
 * and plans": at the Free limit the job is recorded as skipped, and not counted). A job
 * already done or skipped (a redelivery) is `finished`; one found running (its worker died
 * mid-call) runs again without being counted twice. A job that would run asks `admit` for
 * room at its URL; without it, the job is deferred (queued again, due after a backoff) and
 * its quota is not taken. The decisions themselves are libs/domain's (`evalRunQuotaDecision`,
 * `evalDeferralDelayMs`).
 */
export async function claimEvalJob(
  db: DataSource,
  jobId: string,
  nowMs: number,
  admit: (url: string) => boolean = () => true,
): Promise<ClaimedJob> {
  return db.transaction(async (m) => {
    const jobs = new EvalJobs(m);
    const job = await jobs.readToClaim(jobId);
    if (!job) return { kind: 'finished' };
    if (job.status === 'done' || job.status === 'skipped' || job.status === 'failed') return { kind: 'finished' };
    // A deleted evaluator's jobs went with it (cascade), so the kind is known here.
    const evaluatorKind = job.kind ?? 'webhook';
    const skip = async (reason: EvalRunReason, error: string | null = null): Promise<ClaimedJob> => {
      await jobs.markSkipped(jobId, reason, error);
      return { kind: 'skipped', reason, error, evaluatorKind };
    };
    const targetGone = (isSpan: boolean) =>
      isSpan
        ? skip(EVAL_RUN_REASONS.spanDeleted, 'the span no longer exists (deleted by retention)')
        : skip(EVAL_RUN_REASONS.traceDeleted, 'the trace no longer exists (deleted by retention)');
    if (!job.enabled) return skip(EVAL_RUN_REASONS.evaluatorDisabled);
    if (!job.target_found) return targetGone(job.span_id !== null);
    if (!job.plan) return skip(EVAL_RUN_REASONS.organizationDeleted);
    if (job.url === null) {
      // Only a judge has no URL: its connection was deleted. A failed run says so, where silence would not.
      const error = `the judge's LLM connection ${job.judge?.connectionId ?? ''} no longer exists: give the evaluator another one`;
      await jobs.markFailedUnstarted(jobId, EVAL_RUN_REASONS.connectionMissing, error);
      return { kind: 'failed', reason: EVAL_RUN_REASONS.connectionMissing, error, evaluatorKind };
    }
    if (!admit(job.url)) {
      const delayMs = evalDeferralDelayMs(job.deferrals);
      await jobs.markDeferred(jobId, delayMs);
      return { kind: 'deferred', delayMs };
    }
    if (job.status !== 'running') {
      const used = await jobs.countStartedRuns(job.org_id, `${utcMonthOf(nowMs)}-01T00:00:00Z`);
      const decision = evalRunQuotaDecision(job.plan, used, nowMs);
      if (!decision.allowed) return skip(EVAL_RUN_REASONS.quotaReached, decision.message);
      await jobs.markRunning(jobId, new Date(nowMs).toISOString());
    }
    const target = await targetOf(m, job);
    if (!target) return targetGone(false);
    return {
      kind: 'run',
      run: {
        jobId,
        orgId: job.org_id,
        projectId: job.project_id,
        evaluator: {
          id: job.evaluator_id as string,
          name: job.name as string,
          kind: evaluatorKind,
          url: job.url,
          judge: job.judge,
          timeoutMs: job.timeout_ms,
          retries: job.retries,
          filter: storedFilter(job.filter),
          enabled: true,
          target: job.target,
          quietSeconds: job.quiet_seconds,
        },
        target,
      },
    };
  });
}

/** What a job evaluates: its span as the claim read it, or its trace, read now (complete, quiet). */
async function targetOf(m: EntityManager, job: EvalJobToClaim): Promise<EvaluationTarget | undefined> {
  if (job.span_id)
    return { kind: 'span', traceId: job.trace_id, spanId: job.span_id, input: job.input, output: job.output, metadata: job.metadata };
  const trace = await new TraceEvaluations(m).readTrace(job.project_id, job.trace_id);
  return trace && { kind: 'trace', trace };
}

/**
 * Records how a run ended and counts it (SPEC 6.1 rule 6) in one transaction: a run is counted
 * exactly when its job becomes done or failed after it started. A score, when there is one,
 * reaches the read model through INGEST, published before this.
 */
export async function finishEvalJob(db: DataSource, run: Pick<EvaluationToRun, 'jobId' | 'orgId'>, record: EvalRunRecord): Promise<void> {
  await db.transaction(async (m) => {
    const startedAt = await new EvalJobs(m).markFinished(run.jobId, record);
    if (!startedAt) return;
    await new UsageOutbox(m).queue([{ orgId: run.orgId, month: utcMonthOf(startedAt.getTime()), metric: 'eval_runs', n: 1 }]);
  });
}
