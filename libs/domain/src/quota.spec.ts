import { PLANS } from './limits';
import { nextUtcMonthStart, overageOf, traceQuotaDecision, usageReport, utcMonthOf } from './quota';

describe(traceQuotaDecision.name, () => {
  const now = Date.UTC(2026, 10, 22, 12);

  it('blocks Free at its limit and names the plan, the limit and the reset date', () => {
    expect(traceQuotaDecision('free', 9_999, now)).toEqual({ allowed: true });
    const blocked = traceQuotaDecision('free', 10_000, now);
    expect(blocked.allowed).toBe(false);
    expect(!blocked.allowed && blocked.message).toMatch(/free plan.*10,000 traces.*2026-12-01T00:00:00.000Z/);
  });

  it.each(['pro', 'growth', 'team'] as const)('lets %s go on past its limit (overage)', (plan) => {
    expect(traceQuotaDecision(plan, (PLANS[plan].tracesPerMonth as number) * 3, now)).toEqual({ allowed: true });
  });

  it('never blocks Enterprise', () => {
    expect(traceQuotaDecision('enterprise', Number.MAX_SAFE_INTEGER, now)).toEqual({ allowed: true });
  });
});

describe('UTC months', () => {
  it('rolls over at midnight UTC on the first, whatever the local zone', () => {
    expect(utcMonthOf(Date.UTC(2026, 10, 30, 23, 59, 59, 999))).toBe('2026-11');
    expect(utcMonthOf(Date.UTC(2026, 11, 1))).toBe('2026-12');
    expect(nextUtcMonthStart(Date.UTC(2026, 11, 31, 23)).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('counts overage only beyond a finite limit', () => {
    expect(overageOf(50_000, 50_010)).toBe(10);
    expect(overageOf(50_000, 10)).toBe(0);
    expect(overageOf(null, 10)).toBe(0);
  });
});

describe(usageReport.name, () => {
  it('shows the counters against the plan, with overage only where the plan has overages', () => {
    expect(usageReport('pro', '2026-11', { traces: 50_100, spans: 9, evalRuns: 1 })).toEqual({
      month: '2026-11',
      plan: 'pro',
      traces: 50_100,
      spans: 9,
      evalRuns: 1,
      limits: { traces: 50_000, evalRuns: 5_000 },
      overage: { traces: 100, evalRuns: 0 },
    });
    expect(usageReport('free', '2026-11', { traces: 10_003, spans: 0, evalRuns: 0 }).overage).toEqual({ traces: 0, evalRuns: 0 });
    expect(usageReport('enterprise', '2026-11', { traces: 1, spans: 0, evalRuns: 0 }).limits).toEqual({ traces: null, evalRuns: null });
  });
});
