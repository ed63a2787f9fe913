import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type SpanDelta, type SpanFields, type TraceDelta, stamped, versionOf } from '@app/domain';
import { type TestDatabase, createTestDatabase } from '../testing/test-database';
import { writeTelemetry } from '@app/projections';
import { TraceQueries } from './trace-query';

// Rows as ingestion stored them before it checked ranges: written straight through the projection's writer.
const AT = '2026-01-01T00:00:00.000Z';
const FAR = '9999-12-31T00:00:00.000Z';

describe(TraceQueries.name, () => {
  let db: TestDatabase;
  let ds: DataSource;
  let queries: TraceQueries;
  const projectId = randomUUID();

  const trace = (id: string, timestamp: string): TraceDelta => ({
    projectId, id, otelTraceId: null, externalId: null, createdAt: AT, firstEventTime: AT, minSpanStart: null,
    ...stamped({ name: 'stored before the range checks', timestamp }, versionOf(AT, 'e')),
  });
  const span = (traceId: string, values: Partial<SpanFields>): SpanDelta => ({
    projectId, id: randomUUID(), otelSpanId: null, externalId: null, createdAt: AT,
    ...stamped({ traceId, name: 'llm', startTime: FAR, ...values }, versionOf(AT, 'e')),
  });
  const store = (traceId: string, timestamp: string, spans: Partial<SpanFields>[]) =>
    ds.transaction((m) => writeTelemetry(m, { traces: [trace(traceId, timestamp)], spans: spans.map((s) => span(traceId, s)), scores: [], deletions: [] }));

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = db.ds;
    queries = new TraceQueries(ds);
  });

  afterAll(() => db?.drop());

  it('lists and finds a trace whose stored costs would overflow a sum, counting only the costs in range', async () => {
    const huge = randomUUID();
    const mixed = randomUUID();
    await store(huge, FAR, [{ cost: Number.MAX_VALUE }, { cost: Number.MAX_VALUE }]);
    await store(mixed, AT, [{ cost: Number.MAX_VALUE }, { cost: 0.25 }, { cost: 1_000_000 }]);

    const page = await queries.list({ projectId, limit: 10 });
    expect(page.map((r) => [r.id, r.total_cost])).toEqual([
      [huge, null],
      [mixed, 1_000_000.25],
    ]);
    expect(await queries.findOne(projectId, [huge])).toMatchObject({ id: huge, span_count: 2, total_cost: null });
    expect((await queries.spansOf(projectId, huge)).map((s) => s.cost)).toEqual([Number.MAX_VALUE, Number.MAX_VALUE]);
  });
});
