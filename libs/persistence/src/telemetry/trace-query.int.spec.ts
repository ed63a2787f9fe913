import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { type SpanDelta, type SpanFields, type TraceDelta, stamped, versionOf } from '@app/domain';
import { useTestDatabase } from '../testing/test-database';
import { writeTelemetry } from '@app/projections';
import { TraceQueries } from './trace-query';

// Rows as ingestion stored them before it checked ranges: written straight through the projection's writer.
const AT = '2026-01-01T00:00:00.000Z';
const FAR = '9999-12-31T00:00:00.000Z';

describe(TraceQueries.name, () => {
  const db = useTestDatabase();
  let queries: TraceQueries;
  const projectId = randomUUID();

  const trace = (id: string, timestamp: string): TraceDelta => ({
    projectId,
    id,
    otelTraceId: null,
    externalId: null,
    createdAt: AT,
    firstEventTime: AT,
    minSpanStart: null,
    ...stamped({ name: 'stored before the range checks', timestamp }, versionOf(AT, 'e')),
  });
  const span = (traceId: string, values: Partial<SpanFields>): SpanDelta => ({
    projectId,
    id: randomUUID(),
    otelSpanId: null,
    externalId: null,
    createdAt: AT,
    ...stamped({ traceId, name: 'llm', startTime: FAR, ...values }, versionOf(AT, 'e')),
  });
  const store = (traceId: string, timestamp: string, spans: Partial<SpanFields>[], input?: string) =>
    db.ds.transaction((m) =>
      writeTelemetry(m, {
        traces: [{ ...trace(traceId, timestamp), ...(input === undefined ? {} : stamped({ input }, versionOf(AT, 'i'))) } as TraceDelta],
        spans: spans.map((s) => span(traceId, s)),
        scores: [],
        runItems: [],
        deletions: [],
        scoreDeletions: [],
      }),
    );

  beforeAll(async () => {
    queries = new TraceQueries(db.ds);
  });

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

  it("pages a trace's spans by start then id in Postgres, a span without a start last, fields over the bound left out and named", async () => {
    const id = randomUUID();
    const big = 'x'.repeat(5_000);
    await store(id, AT, [
      { name: 'b', startTime: '2026-01-01T00:00:01.000Z', input: big },
      { name: 'a', startTime: '2026-01-01T00:00:00.000Z', input: 'small' },
      { name: 'open', startTime: null as unknown as string },
      { name: 'c', startTime: '2026-01-01T00:00:01.000Z', output: big },
    ]);
    const walk: string[] = [];
    let after: [string | null, string] | undefined;
    for (;;) {
      const [key] = await queries.spanPageKeys(projectId, id, after, 1, 1_000, 10);
      if (!key) break;
      const [row] = await queries.spansByIds(projectId, id, [key.id], 1_000);
      walk.push(`${row.name}${Object.keys(row.truncated).length ? ` cut ${JSON.stringify(row.truncated)}` : ''}`);
      // Fields over the bound weigh nothing: they are not sent.
      expect(key.bytes).toBeLessThan(1_000);
      after = [key.time_text, key.id];
    }
    expect(walk.slice(0, 1)).toEqual(['a']);
    expect(walk.slice(1, 3).sort()).toEqual(['b cut {"input":5002}', 'c cut {"output":5002}']);
    expect(walk[3]).toBe('open');
    expect(walk).toHaveLength(4);
    const whole = await queries.spanOf(projectId, id, [(await queries.spanPageKeys(projectId, id, undefined, 1, 1_000, 10))[0].id]);
    expect(whole?.name).toBe('a');
  });

  it("leaves a list page's large trace input out, naming its size, and keeps it for the single read", async () => {
    const id = randomUUID();
    await store(id, '2026-01-02T00:00:00.000Z', [], 'y'.repeat(2_000));
    const [row] = await queries.list({ projectId, ids: [id], limit: 1, fieldBytes: 1_000 });
    expect(row).toMatchObject({ input: null, truncated: { input: 2_002 } });
    expect(await queries.findOne(projectId, [id])).toMatchObject({ input: 'y'.repeat(2_000), truncated: {} });
  });
});
