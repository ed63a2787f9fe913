import type { DataSource, EntityManager } from 'typeorm';
import {
  type EvaluationResult,
  type EvaluationTarget,
  type EvaluatorSettings,
  evalDeferralDelayMs,
  evalRunQuotaDecision,
  storedFilter,
  utcMonthOf,
} from '@app/domain';
import { type EvalJobToClaim, EvalJobs, TraceEvaluations, UsageOutbox } from '@app/persistence';

/** A job cleared to run: what the call needs, but its evaluator's secrets (EvaluatorStore.secrets). */
export interface EvaluationToRun {
  jobId: string;
  orgId: string;
  projectId: string;
  evaluator: Omit<EvaluatorSettings, 'headers'> & { id: string };
  /** The span, or the complete trace of a trace-target evaluator, as its evaluation reads it. */
  target: EvaluationTarget;
}

export type ClaimedJob =
  | { kind: 'run'; run: EvaluationToRun }
  | { kind: 'skipped'; reason: string }
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
    if (job.status === 'done' || job.status === 'skipped') return { kind: 'finished' };
    const skip = async (reason: string): Promise<ClaimedJob> => {
      await jobs.markSkipped(jobId, reason);
      return { kind: 'skipped', reason };
    };
    if (!job.enabled) return skip('the evaluator is disabled');
    if (!job.target_found) return skip(`the ${job.span_id ? 'span' : 'trace'} no longer exists (deleted by retention)`);
    if (!job.plan) return skip('the organization no longer exists');
    if (!admit(job.url)) {
      const delayMs = evalDeferralDelayMs(job.deferrals);
      await jobs.markDeferred(jobId, delayMs);
      return { kind: 'deferred', delayMs };
    }
    if (job.status !== 'running') {
      const used = await jobs.countStartedRuns(job.org_id, `${utcMonthOf(nowMs)}-01T00:00:00Z`);
      const decision = evalRunQuotaDecision(job.plan, used, nowMs);
      if (!decision.allowed) return skip(`quota: ${decision.message}`);
      await jobs.markRunning(jobId, new Date(nowMs).toISOString());
    }
    const target = await targetOf(m, job);
    if (!target) return skip('the trace no longer exists (deleted by retention)');
    return {
      kind: 'run',
      run: {
        jobId,
        orgId: job.org_id,
        projectId: job.project_id,
        evaluator: {
          id: job.evaluator_id as string,
          name: job.name as string,
          url: job.url,
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
  if (job.span_id) return { kind: 'span', traceId: job.trace_id, spanId: job.span_id, input: job.input, output: job.output };
  const trace = await new TraceEvaluations(m).readTrace(job.project_id, job.trace_id);
  return trace && { kind: 'trace', trace };
}

/**
 * Records a run's result and counts the run (SPEC 6.1 rule 6) in one transaction: a run is
 * counted exactly when its job becomes done. The score itself reaches the read model
 * through INGEST, published before this.
 */
export async function finishEvalJob(db: DataSource, run: EvaluationToRun, result: EvaluationResult): Promise<void> {
  await db.transaction(async (m) => {
    const startedAt = await new EvalJobs(m).markDone(run.jobId, result);
    if (!startedAt) return;
    await new UsageOutbox(m).queue([{ orgId: run.orgId, month: utcMonthOf(startedAt.getTime()), metric: 'eval_runs', n: 1 }]);
  });
}
