import { PLANS, type PlanName } from './limits';

/** The metrics of SPEC 2.7, as counted per organization per UTC month. */
export const USAGE_METRICS = ['traces', 'spans', 'eval_runs'] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

/** `2026-11` for any instant in November 2026, UTC. */
export const utcMonthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** The first instant of the UTC month after the one holding `ms`: when monthly quotas reset. */
export function nextUtcMonthStart(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

export type QuotaDecision = { allowed: true } | { allowed: false; message: string };

/**
 * Whether an organization may use more of a monthly quota (SPEC 8.4, CONTRACT "Quotas and
 * plans"): only a plan without overages and with a limit ever blocks; the others count the
 * overage.
 */
function monthlyQuotaDecision(plan: PlanName, limit: number | null, what: string, used: number, nowMs: number): QuotaDecision {
  if (limit === null || PLANS[plan].overages || used < limit) return { allowed: true };
  const resets = nextUtcMonthStart(nowMs).toISOString();
  return {
    allowed: false,
    message: `the ${plan} plan's monthly quota of ${limit.toLocaleString('en-US')} ${what} is used up (${used.toLocaleString('en-US')} this month); it resets at ${resets} or on an upgrade`,
  };
}

/** Traces: `used` may be a few seconds old, so the overshoot is what arrives meanwhile. */
export const traceQuotaDecision = (plan: PlanName, used: number, nowMs: number): QuotaDecision =>
  monthlyQuotaDecision(plan, PLANS[plan].tracesPerMonth, 'traces', used, nowMs);

/** LLM evals: counted exactly, before each run. */
export const evalRunQuotaDecision = (plan: PlanName, used: number, nowMs: number): QuotaDecision =>
  monthlyQuotaDecision(plan, PLANS[plan].evalRunsPerMonth, 'LLM evals', used, nowMs);

/** Usage beyond the plan's monthly limit (0 when within it or unlimited). */
export const overageOf = (limit: number | null, used: number): number => (limit === null ? 0 : Math.max(0, used - limit));

export interface MonthlyUsage {
  traces: number;
  spans: number;
  evalRuns: number;
}

/**
 * A month's counters against the plan (`usage.get`, `spanlog usage`). Overage is what a plan
 * with overages used beyond its limits; a plan without them has none (the few traces past a
 * Free limit, let through while the quota check's counters were seconds old, are not billed).
 */
export function usageReport(plan: PlanName, month: string, used: MonthlyUsage) {
  const { tracesPerMonth, evalRunsPerMonth, overages } = PLANS[plan];
  return {
    month,
    plan,
    ...used,
    limits: { traces: tracesPerMonth, evalRuns: evalRunsPerMonth },
    overage: {
      traces: overages ? overageOf(tracesPerMonth, used.traces) : 0,
      evalRuns: overages ? overageOf(evalRunsPerMonth, used.evalRuns) : 0,
    },
  };
}
