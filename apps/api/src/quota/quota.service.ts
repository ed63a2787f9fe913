import { Injectable } from '@nestjs/common';
import { DomainError, traceQuotaDecision, utcMonthOf } from '@app/domain';
import { type ApiKeyPrincipal, UsageQueries } from '@app/persistence';

/** Counters are read at most this old (CONTRACT "Quotas and plans"): the overshoot is what arrives meanwhile. */
export const QUOTA_CACHE_MS = 5_000;

/** Refuses ingestion once a plan without overages has used its monthly traces (SPEC 8.4). */
@Injectable()
export class QuotaService {
  private readonly cache = new Map<string, { at: number; traces: Promise<number> }>();

  constructor(private readonly usage: UsageQueries) {}

  async assertCanIngestTraces(principal: ApiKeyPrincipal, now = Date.now()): Promise<void> {
    // Plans that never block need no look-up.
    if (traceQuotaDecision(principal.plan, Number.MAX_SAFE_INTEGER, now).allowed) return;
    const decision = traceQuotaDecision(principal.plan, await this.tracesThisMonth(principal.orgId, now), now);
    if (!decision.allowed) throw new DomainError('QUOTA_EXCEEDED', decision.message);
  }

  private tracesThisMonth(orgId: string, now: number): Promise<number> {
    const month = utcMonthOf(now);
    const key = `${orgId}/${month}`;
    const cached = this.cache.get(key);
    if (cached && now - cached.at < QUOTA_CACHE_MS) return cached.traces;
    const traces = this.usage.month(orgId, month).then((u) => u.traces);
    this.cache.set(key, { at: now, traces });
    traces.catch(() => this.cache.delete(key));
    return traces;
  }
}
