import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { UsageCounted } from '@app/domain';
import { PermanentMessageError } from '@app/eventlog';
import { UsageQueries } from '@app/persistence';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { type StoredMessage } from '../projection';
import { usageProjection } from './usage.projection';

const stored = (body: string): StoredMessage => ({ seq: 1, headers: undefined, data: new TextEncoder().encode(body) });
const decode = (body: string) => usageProjection.decode(stored(body), { chunks: undefined as never });

describe('usage projection', () => {
  const db = useTestDatabase();

  const counted = (orgId: string, metric: UsageCounted['metric'], n: number, month = '2026-11'): UsageCounted => ({
    id: randomUUID(),
    orgId,
    metric,
    n,
    month,
    source: 'live',
  });

  it('decodes a count and refuses for good one it could not add (no id, a negative count, another source)', async () => {
    const c = counted(randomUUID(), 'spans', 7);
    expect(await decode(JSON.stringify(c))).toEqual(c);
    for (const bad of [
      { ...c, id: 'x' },
      { ...c, n: -1 },
      { ...c, source: 'replay' },
      { ...c, month: '2026-1' },
    ]) {
      await expect(decode(JSON.stringify(bad))).rejects.toBeInstanceOf(PermanentMessageError);
    }
  });

  it('adds each count to its organization and month once, whatever the order and however often it is applied', async () => {
    const orgId = randomUUID();
    const counts = [
      counted(orgId, 'traces', 2),
      counted(orgId, 'spans', 20),
      counted(orgId, 'eval_runs', 1),
      counted(orgId, 'spans', 5, '2026-12'),
    ];
    await db.ds.transaction((m) => usageProjection.apply(m, counts.slice(0, 2)));
    await db.ds.transaction((m) => usageProjection.apply(m, [...counts].reverse()));
    await db.ds.transaction((m) => usageProjection.apply(m, [counts[1], counts[1]]));
    const usage = new UsageQueries(db.ds);
    expect(await usage.month(orgId, '2026-11')).toEqual({ traces: 2, spans: 20, evalRuns: 1 });
    expect(await usage.month(orgId, '2026-12')).toEqual({ traces: 0, spans: 5, evalRuns: 0 });
  });
});
