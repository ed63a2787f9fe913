import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type SpanDelta, type TelemetryFacts, type TraceDelta, type TraceFields, type SpanFields, foldFacts, stamped, versionOf } from '@app/domain';
import { type TestDatabase, createTestDatabase } from '../testing/test-database';
import { deleteTraces, writeTelemetry } from './telemetry-writer';
import { TraceQueries } from './trace-query';

const projectId = randomUUID();
const traceId = randomUUID();

const trace = (iso: string, eventId: string, values: Partial<TraceFields>, minSpanStart: string | null = null): TraceDelta => ({
  projectId, id: traceId, otelTraceId: null, externalId: 'ext', createdAt: iso, firstEventTime: iso, minSpanStart,
  ...stamped(values, versionOf(iso, eventId)),
});
const span = (id: string, iso: string, eventId: string, values: Partial<SpanFields>): SpanDelta => ({
  projectId, id, otelSpanId: null, externalId: null, createdAt: iso,
  ...stamped({ traceId, ...values }, versionOf(iso, eventId)),
});
const facts = (partial: Partial<TelemetryFacts>): TelemetryFacts => ({ traces: [], spans: [], scores: [], deletions: [], ...partial });

describe(writeTelemetry.name, () => {
  let ds: DataSource;
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = db.ds;
  });

  afterAll(() => db?.drop());

  beforeEach(() => ds.query('TRUNCATE traces, spans, scores, deleted_traces'));

  const events = [
    facts({ traces: [trace('2024-01-01T00:00:03.000Z', 'a', { name: 'newest', tags: ['x', 'y'] })] }),
    facts({ traces: [trace('2024-01-01T00:00:01.000Z', 'b', { name: 'oldest', userId: 'u-old', input: { deep: ['v'] } })] }),
    facts({ traces: [trace('2024-01-01T00:00:02.000Z', 'c', { userId: 'u-mid' }, '2024-01-01T00:00:00.500Z')] }),
  ];
  const orders = [[0, 1, 2], [2, 1, 0], [1, 0, 2], [1, 2, 0, 0, 1]];

  it.each(orders)('converges to the same row whatever the order (%p…)', async (...order: number[]) => {
    for (const i of order) await ds.transaction((m) => writeTelemetry(m, events[i]));
    const [row] = await ds.query('SELECT name, user_id, tags, input, "timestamp", created_at FROM traces');
    expect(row).toEqual({
      name: 'newest',
      user_id: 'u-mid',
      tags: ['x', 'y'],
      input: { deep: ['v'] },
      timestamp: new Date('2024-01-01T00:00:00.500Z'),
      created_at: new Date('2024-01-01T00:00:01.000Z'),
    });
  });

  it('aggregates spans on read: count, tokens, cost and latency', async () => {
    await ds.transaction((m) =>
      writeTelemetry(
        m,
        facts({
          traces: [trace('2024-01-01T00:00:00.000Z', 'e0', { name: 't' })],
          spans: [
            span(randomUUID(), '2024-01-01T00:00:00.000Z', 'e1', { startTime: '2024-01-01T00:00:00.000Z', endTime: '2024-01-01T00:00:02.000Z', totalTokens: 15, cost: 0.0000045 }),
            span(randomUUID(), '2024-01-01T00:00:00.000Z', 'e2', { startTime: '2024-01-01T00:00:01.000Z', promptTokens: 10, completionTokens: 5, cost: 0.0000045 }),
          ],
        }),
      ),
    );
    const [row] = await new TraceQueries(ds).list({ projectId, limit: 10 });
    expect(row).toMatchObject({ span_count: 2, total_tokens: 30, total_cost: 0.000009, latency_ms: 2000 });
  });

  it('reports the rows it created, per project and UTC month, and not the ones it merged into', async () => {
    const first = await ds.transaction((m) => writeTelemetry(m, events[0]));
    expect(first.newTraces).toEqual([{ projectId, month: '2024-01', n: 1 }]);
    const again = await ds.transaction((m) => writeTelemetry(m, foldFacts([events[1], events[0]])));
    expect(again.newTraces).toEqual([]);
    const spans = await ds.transaction((m) => writeTelemetry(m, facts({ spans: [span(randomUUID(), '2024-02-01T00:00:00.000Z', 's1', { name: 'a' }), span(randomUUID(), '2024-02-01T00:00:00.000Z', 's2', { name: 'b' })] })));
    expect(spans.newSpans).toEqual([{ projectId, month: '2024-02', n: 2 }]);
  });

  it('deletes a trace with its spans for good: later spans and a replay of the trace write nothing', async () => {
    const spanId = randomUUID();
    await ds.transaction((m) => writeTelemetry(m, facts({ traces: events[0].traces, spans: [span(spanId, '2024-01-01T00:00:00.000Z', 's1', { name: 'a' })] })));
    const deleted = await ds.transaction((m) => deleteTraces(m, [{ projectId, id: traceId, deletedAt: '2024-02-01T00:00:00.000Z' }]));
    expect(deleted).toEqual({ traces: 1, spans: 1, scores: 0 });
    const replay = await ds.transaction((m) => writeTelemetry(m, foldFacts([...events, facts({ spans: [span(randomUUID(), '2024-03-01T00:00:00.000Z', 's2', { name: 'late' })] })])));
    expect(replay).toEqual({ newTraces: [], newSpans: [] });
    expect((await ds.query('SELECT count(*)::int AS n FROM traces')).concat(await ds.query('SELECT count(*)::int AS n FROM spans'))).toEqual([{ n: 0 }, { n: 0 }]);
    expect(await ds.transaction((m) => deleteTraces(m, [{ projectId, id: traceId, deletedAt: '2024-02-01T00:00:00.000Z' }]))).toEqual({ traces: 0, spans: 0, scores: 0 });
  });

  it('keeps rows of different projects apart', async () => {
    await ds.transaction((m) => writeTelemetry(m, events[0]));
    expect(await new TraceQueries(ds).list({ projectId: randomUUID(), limit: 10 })).toEqual([]);
    expect(await new TraceQueries(ds).findOne(projectId, [traceId])).not.toBeNull();
  });
});
