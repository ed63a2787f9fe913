import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { GroupFilter } from '@app/domain';
import { useTestDatabase } from '../testing/test-database';
import { pageKeysFromNewestTraces } from './trace-group-candidates';
import { type GroupKind, type GroupRow, TraceGroupQueries } from './trace-group-query';

/** One trace as the lists see it: its time (whole seconds after BASE, so many tie), its keys, its environment. */
interface GenTrace {
  second: number;
  user: string | null;
  session: string | null;
  environment: string | null;
}

const BASE = Date.parse('2026-03-01T00:00:00.000Z');
const at = (second: number) => new Date(BASE + second * 1_000).toISOString();

describe(TraceGroupQueries.name, () => {
  const db = useTestDatabase();
  let groups: TraceGroupQueries;

  beforeAll(() => {
    groups = new TraceGroupQueries(db.ds);
  });

  /** A project of its own holding `traces`, each with a span so the totals have something to sum. */
  async function project(traces: GenTrace[]): Promise<string> {
    const projectId = randomUUID();
    const ids = traces.map(() => randomUUID());
    await db.ds.query(
      `INSERT INTO traces (project_id, id, first_event_time, user_id, session_id, environment, created_at)
       SELECT $1, x.id, x.ts, x.user_id, x.session_id, x.environment, x.ts
         FROM unnest($2::uuid[], $3::timestamptz[], $4::text[], $5::text[], $6::text[]) AS x (id, ts, user_id, session_id, environment)`,
      [
        projectId,
        ids,
        traces.map((t) => at(t.second)),
        traces.map((t) => t.user),
        traces.map((t) => t.session),
        traces.map((t) => t.environment),
      ],
    );
    await db.ds.query(
      `INSERT INTO spans (project_id, id, trace_id, name, start_time, end_time, total_tokens, cost, created_at)
       SELECT $1, gen_random_uuid(), x.id, 'llm', x.ts, x.ts + interval '3 seconds', 10, 0.5, x.ts
         FROM unnest($2::uuid[], $3::timestamptz[]) AS x (id, ts)`,
      [projectId, ids, traces.map((t) => at(t.second))],
    );
    return projectId;
  }

  /** Every page of a list from its start, each page read the way `read` reads it; the cursor is the last row's position. */
  async function walk(read: (f: GroupFilter) => Promise<GroupRow[]>, f: GroupFilter): Promise<GroupRow[][]> {
    const pages: GroupRow[][] = [];
    let after: GroupFilter['after'];
    for (;;) {
      const rows = await read({ ...f, after });
      pages.push(rows);
      if (rows.length < f.limit) return pages;
      const last = rows[rows.length - 1];
      after = [last.last_ts_text, last.key];
    }
  }

  /** The bounded path and the full grouping give the same pages, cursors and totals, page after page. */
  async function expectSameWalk(kind: GroupKind, projectId: string, f: GroupFilter) {
    const fast = await walk((g) => groups.list(kind, projectId, g), f);
    const full = await walk((g) => groups.listFromEveryTrace(kind, projectId, g), f);
    expect(fast).toEqual(full);
    return full;
  }

  /** A deterministic mixed data set: 1,200 traces over 300 instants, 60 users and 250 sessions, some without either. */
  const generated = (): GenTrace[] =>
    Array.from({ length: 1_200 }, (_, i) => ({
      second: (i * 7_919) % 300,
      user: i % 9 === 0 ? null : `user-${(i * 31) % 60}`,
      session: i % 11 === 0 ? null : `session-${Math.floor(i / 4) % 250}`,
      environment: [null, 'production', 'production', 'staging', 'rare'][i % 5 === 4 ? (i % 35 === 4 ? 4 : 1) : i % 4],
    }));

  const FILTERS: Record<string, Omit<GroupFilter, 'limit'>> = {
    none: {},
    idContains: { idContains: '1' },
    environment: { environment: 'staging' },
    rareEnvironment: { environment: 'rare' },
    from: { from: at(200) },
    to: { to: at(100) },
    fromAndTo: { from: at(120), to: at(140) },
    emptyRange: { from: at(400) },
  };

  it.each(Object.entries(FILTERS))('pages users and sessions from the newest traces as from every trace, filter %s', async (_, filter) => {
    const projectId = await project(generated());
    for (const kind of ['user', 'session'] as const)
      for (const limit of [4, 50]) await expectSameWalk(kind, projectId, { ...filter, limit });
  });

  it('orders groups last active at the same instant by key, however few of their traces a walk would read', async () => {
    const tied = Array.from({ length: 40 }, (_, i) => ({
      second: i < 30 ? 5 : 4,
      user: `tie-${(i * 17) % 40}`,
      session: `tie-${i % 15}`,
      environment: null,
    }));
    const projectId = await project(tied);
    for (const limit of [1, 3]) {
      const [first] = await expectSameWalk('user', projectId, { limit });
      expect(first.map((r) => r.key)).toEqual(['tie-9', 'tie-8', 'tie-5'].slice(0, limit));
      await expectSameWalk('session', projectId, { limit });
    }
  });

  it("pages a user's sessions as from every trace", async () => {
    const projectId = await project(generated());
    const pages = await expectSameWalk('session', projectId, { userId: 'user-7', limit: 3 });
    expect(pages.flat().length).toBeGreaterThan(3);
    await expectSameWalk('session', projectId, { userId: 'user-7', environment: 'production', from: at(100), limit: 2 });
    await expectSameWalk('session', projectId, { userId: 'nobody', limit: 2 });
  });

  it('tells the page of a big project from a walk of a few of its newest traces', async () => {
    const projectId = await project(generated());
    const f = { limit: 11 };
    const keys = await pageKeysFromNewestTraces(db.ds, 'user', projectId, f, 110);
    expect(keys).toEqual((await groups.listFromEveryTrace('user', projectId, f)).map((r) => r.key));
    // Too short a walk to see a page's groups says so rather than guess.
    expect(await pageKeysFromNewestTraces(db.ds, 'user', projectId, f, 5)).toBeNull();
  });

  it('finds the same pages as every trace on random data, ties, null keys and filters included', async () => {
    const trace = fc.record({
      second: fc.integer({ min: 0, max: 12 }),
      user: fc.option(fc.constantFrom('u1', 'u2', 'u3', 'u4', 'u10'), { freq: 4 }),
      session: fc.option(fc.constantFrom('s1', 's2', 's3', 's4', 's5', 's6', 's7', 's11'), { freq: 4 }),
      environment: fc.option(fc.constantFrom('a', 'b'), { freq: 3 }),
    });
    // Each filter on about one list in four, so that lists without filters and with one or two are all common.
    const sometimes = <T>(values: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: values, weight: 1 });
    const filter = fc.record({
      idContains: sometimes(fc.constantFrom('1', 'S', '2')),
      environment: sometimes(fc.constantFrom('a', 'b')),
      from: sometimes(fc.integer({ min: 0, max: 12 }).map(at)),
      to: sometimes(fc.integer({ min: 0, max: 12 }).map(at)),
      userId: sometimes(fc.constantFrom('u1', 'u2', 'u10')),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(trace, { minLength: 5, maxLength: 80, size: 'max' }),
        filter,
        fc.integer({ min: 1, max: 4 }),
        async (traces, f, limit) => {
          const projectId = await project(traces);
          const range = f.from !== undefined && f.to !== undefined && f.to < f.from ? { from: f.to, to: f.from } : {};
          await expectSameWalk('session', projectId, { ...f, ...range, limit });
          await expectSameWalk('user', projectId, { ...f, ...range, userId: undefined, limit });
        },
      ),
      // Each run writes a project: a failure is reported as found, not shrunk for minutes.
      { numRuns: 60, endOnFailure: true },
    );
  });
});
