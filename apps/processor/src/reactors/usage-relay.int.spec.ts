import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { UsageCounted } from '@app/domain';
import { UsageOutbox, UsageQueries } from '@app/persistence';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { usageProjection } from '@app/projections';
import { relayUsage } from './usage-relay';

describe('usage outbox, relay and counters', () => {
  const db = useTestDatabase();
  const orgId = randomUUID();

  beforeEach(() => db.ds.query('TRUNCATE usage_outbox, usage_counters, usage_applied'));

  it('relays queued counts once and counts each of them once, however often they are applied', async () => {
    await db.ds.transaction((m) =>
      new UsageOutbox(m).queue([
        { orgId, month: '2026-11', metric: 'traces', n: 3 },
        { orgId, month: '2026-11', metric: 'spans', n: 30 },
        { orgId, month: '2026-12', metric: 'traces', n: 1 },
        { orgId, month: '2026-11', metric: 'spans', n: 0 },
      ]),
    );
    const published: UsageCounted[] = [];
    expect(await relayUsage(db.ds, 100, async (events) => void published.push(...events))).toBe(3);
    expect(await relayUsage(db.ds, 100, async () => undefined)).toBe(0);

    await db.ds.transaction((m) => usageProjection.apply(m, published));
    await db.ds.transaction((m) => usageProjection.apply(m, [...published, published[0]]));
    const usage = new UsageQueries(db.ds);
    expect(await usage.month(orgId, '2026-11')).toEqual({ traces: 3, spans: 30, evalRuns: 0 });
    expect(await usage.month(orgId, '2026-12')).toEqual({ traces: 1, spans: 0, evalRuns: 0 });
    expect(await usage.month(randomUUID(), '2026-11')).toEqual({ traces: 0, spans: 0, evalRuns: 0 });
  });

  it('keeps the counts queued when publishing fails, and relays them later', async () => {
    await db.ds.transaction((m) => new UsageOutbox(m).queue([{ orgId, month: '2026-11', metric: 'traces', n: 2 }]));
    await expect(relayUsage(db.ds, 100, async () => Promise.reject(new Error('no ack')))).rejects.toThrow('no ack');
    const published: UsageCounted[] = [];
    expect(await relayUsage(db.ds, 100, async (events) => void published.push(...events))).toBe(1);
    expect(published[0]).toMatchObject({ orgId, metric: 'traces', n: 2, month: '2026-11', source: 'live' });
  });
});
