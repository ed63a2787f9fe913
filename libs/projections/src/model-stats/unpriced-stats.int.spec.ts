import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  BUILT_IN_PRICES,
  PriceTable,
  type SpanDelta,
  type SpanFields,
  priceSpan,
  stamped,
  unpricedUsageOf,
  validateUnpricedQuery,
  versionOf,
} from '@app/domain';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { readUnpricedUsage, readWindowSums } from '../stats/overview-stats-store';
import { writeTelemetry } from '../telemetry/tables/telemetry-writer';
import { rebuildModelStats } from './rebuild-model-stats';

const PRICES = new PriceTable(BUILT_IN_PRICES);
const traceId = randomUUID();

/** A span as the decoder makes it: its facts, then priced from the built-in table. */
const pricedSpan = (projectId: string, start: string, fields: Partial<SpanFields>, id = randomUUID(), event = 'e1'): SpanDelta => {
  const span: SpanDelta = {
    projectId,
    id,
    otelSpanId: null,
    externalId: null,
    createdAt: start,
    ...stamped<SpanFields>({ traceId, type: 'LLM', startTime: start, ...fields }, versionOf(start, event)),
  };
  priceSpan(span, PRICES);
  return span;
};

const HOUR = { from: new Date('2025-09-01T10:00:00Z'), to: new Date('2025-09-01T11:00:00Z') };

/** Issue 28: the models and usage types seen without a price, from what the projection stores, read from the 5-minute stats. */
describe('unpriced usage stats', () => {
  const db = useTestDatabase();
  let ds: DataSource;

  beforeAll(() => {
    ds = db.ds;
  });

  const write = (spans: SpanDelta[]) =>
    ds.transaction((m) => writeTelemetry(m, { traces: [], spans, scores: [], runItems: [], deletions: [], scoreDeletions: [] }));
  const report = async (projectId: string, query: Record<string, string> = {}) => {
    const range = validateUnpricedQuery(query);
    return unpricedUsageOf(range, await readUnpricedUsage(ds, projectId, range.from, range.to));
  };

  it('counts per model and usage type the spans whose usage had no price, with first and last seen', async () => {
    const projectId = randomUUID();
    await write([
      pricedSpan(projectId, '2025-09-01T10:01:00.000Z', { model: 'acme-large', usageDetails: { input: 10, output: 5 } }),
      pricedSpan(projectId, '2025-09-01T10:31:00.000Z', { model: 'acme-large', usageDetails: { input: 3 } }),
      // A priced model with a type the table has no price for: its cost leaves it out and it is named.
      pricedSpan(projectId, '2025-09-01T10:07:00.000Z', { model: 'gpt-4o-mini', usageDetails: { input: 10, input_audio: 4 } }),
      // Priced whole, a client's cost, and no model: nothing unpriced.
      pricedSpan(projectId, '2025-09-01T10:08:00.000Z', { model: 'gpt-4o-mini', usageDetails: { input: 10, output: 1 } }),
      pricedSpan(projectId, '2025-09-01T10:09:00.000Z', { model: 'acme-large', usageDetails: { input: 10 }, cost: 0.5 }),
      pricedSpan(projectId, '2025-09-01T10:10:00.000Z', { usageDetails: { input: 10 } }),
    ]);
    await rebuildModelStats(ds);

    const usage = await report(projectId);
    expect(usage).toEqual({
      from: null,
      to: null,
      models: [
        {
          model: 'acme-large',
          spans: 2,
          firstSeen: '2025-09-01T10:01:00.000Z',
          lastSeen: '2025-09-01T10:31:00.000Z',
          usageTypes: [
            { type: 'input', spans: 2, firstSeen: '2025-09-01T10:01:00.000Z', lastSeen: '2025-09-01T10:31:00.000Z' },
            { type: 'output', spans: 1, firstSeen: '2025-09-01T10:01:00.000Z', lastSeen: '2025-09-01T10:01:00.000Z' },
          ],
        },
        {
          model: 'gpt-4o-mini',
          spans: 1,
          firstSeen: '2025-09-01T10:07:00.000Z',
          lastSeen: '2025-09-01T10:07:00.000Z',
          usageTypes: [{ type: 'input_audio', spans: 1, firstSeen: '2025-09-01T10:07:00.000Z', lastSeen: '2025-09-01T10:07:00.000Z' }],
        },
      ],
    });
    // The range reads whole 5-minute buckets: 10:03 reads from 10:00, 10:06 up to 10:10; the model last seen comes first.
    const early = await report(projectId, { from: '2025-09-01T10:03:00Z', to: '2025-09-01T10:06:00Z' });
    expect(early.models.map((m) => [m.model, m.spans, m.lastSeen])).toEqual([
      ['gpt-4o-mini', 1, '2025-09-01T10:07:00.000Z'],
      ['acme-large', 1, '2025-09-01T10:01:00.000Z'],
    ]);
    expect(await report(projectId, { from: '2025-09-01T10:20:00Z', to: '2025-09-01T10:30:00Z' })).toEqual({
      from: '2025-09-01T10:20:00.000Z',
      to: '2025-09-01T10:30:00.000Z',
      models: [],
    });

    // The monitor metric: spans with unpriced usage, filterable by the stats' dimensions.
    const window = (filter: { model?: string; spanType?: string }) => readWindowSums(ds, projectId, HOUR.from, HOUR.to, filter);
    expect((await window({})).spans?.unpricedCalls).toBe(3);
    expect((await window({ model: 'acme-large' })).spans?.unpricedCalls).toBe(2);
    expect((await window({ spanType: 'TOOL' })).spans).toBeNull();
  });

  it('follows the rows: a client cost that arrives later takes the span out, and another project sees nothing of it', async () => {
    const projectId = randomUUID();
    const id = randomUUID();
    await write([pricedSpan(projectId, '2025-09-01T10:01:00.000Z', { model: 'acme-small', usageDetails: { input: 7 } }, id)]);
    await rebuildModelStats(ds);
    expect((await report(projectId)).models.map((m) => [m.model, m.spans])).toEqual([['acme-small', 1]]);
    expect((await report(randomUUID())).models).toEqual([]);

    await write([pricedSpan(projectId, '2025-09-01T10:01:00.000Z', { cost: 0.01 }, id, 'e2')]);
    const [row] = await ds.query('SELECT unpriced_usage, cost_source FROM spans WHERE project_id = $1 AND id = $2', [projectId, id]);
    expect(row).toEqual({ unpriced_usage: [], cost_source: 'client' });
    await rebuildModelStats(ds);
    expect((await report(projectId)).models).toEqual([]);
    expect((await readWindowSums(ds, projectId, HOUR.from, HOUR.to, {})).spans?.unpricedCalls).toBe(0);
  });
});
