import 'reflect-metadata';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import type { GroupFilter } from '@app/domain';
import { type GroupKind, type GroupRow, TraceGroupQueries, createDataSource } from '@app/persistence';
import { percentile } from './stats';

/**
 * Issue 33's session and user lists on a project already loaded (the ceiling stage's database
 * kept with `--keep`, or the lead's): each page read from every trace of the project and from
 * its newest traces, `--repeat` times each, on the same data; the two answers compared.
 * Read-only: `DATABASE_URL=… node dist/bench/bench/group-lists.js --project <id>`.
 */

const { values } = parseArgs({
  options: {
    project: { type: 'string' },
    repeat: { type: 'string', default: '20' },
    deep: { type: 'string', default: '20' },
    // Grouping every trace takes seconds a request at ten million spans: `--newest-only` times the new path alone.
    'newest-only': { type: 'boolean', default: false },
  },
});
const PAGE = 50;
const say = (line: string) => process.stdout.write(`${line}\n`);

type Read = (kind: GroupKind, projectId: string, f: GroupFilter) => Promise<GroupRow[]>;

async function timings(read: Read, kind: GroupKind, projectId: string, f: GroupFilter, repeat: number) {
  const samples: number[] = [];
  let rows: GroupRow[] = [];
  for (let n = 0; n < repeat; n++) {
    const t0 = performance.now();
    rows = await read(kind, projectId, f);
    samples.push(performance.now() - t0);
  }
  return { rows, p50: percentile(samples, 0.5) as number, p95: percentile(samples, 0.95) as number };
}

/** The cursor `pages` pages into the list, as a client paging through it would hold it. */
async function cursorAfter(groups: TraceGroupQueries, kind: GroupKind, projectId: string, f: GroupFilter, pages: number) {
  let after: GroupFilter['after'];
  for (let n = 0; n < pages; n++) {
    const rows = await groups.list(kind, projectId, { ...f, after });
    if (rows.length < f.limit) break;
    const last = rows[PAGE - 1];
    after = [last.last_ts_text, last.key];
  }
  return after;
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url || !values.project)
    throw new Error('usage: DATABASE_URL=… node dist/bench/bench/group-lists.js --project <id> [--repeat N] [--deep PAGES]');
  const projectId = values.project;
  const repeat = Number(values.repeat);
  const ds = createDataSource({ url, poolSize: 2, applicationName: 'spanlog-bench-group-lists' });
  await ds.initialize();
  try {
    const groups = new TraceGroupQueries(ds);
    const [{ newest }] = (await ds.query(`SELECT max("timestamp") AS newest FROM traces WHERE project_id = $1`, [projectId])) as {
      newest: Date;
    }[];
    const daysAgo = (days: number) => new Date(newest.getTime() - days * 86_400_000).toISOString();
    // A page as the API asks for it: one row more than it shows, to know whether another follows.
    const cases: Record<string, Omit<GroupFilter, 'limit'>> = {
      first: {},
      environment: { environment: 'staging' },
      last7d: { from: daysAgo(7) },
      before7d: { to: daysAgo(7) },
      idContains: { idContains: '12' },
    };
    for (const kind of ['user', 'session'] as const) {
      const deep = await cursorAfter(groups, kind, projectId, { limit: PAGE + 1 }, Number(values.deep));
      const byUser = kind === 'session' ? { userId: { userId: 'user-7' } } : {};
      for (const [name, filter] of Object.entries({ ...cases, ...byUser, [`deep${values.deep}`]: { after: deep } })) {
        const f = { ...filter, limit: PAGE + 1 };
        const newestFirst = await timings((k, p, g) => groups.list(k, p, g), kind, projectId, f, repeat);
        const newestFigures = `newest traces p50 ${newestFirst.p50.toFixed(1)} ms p95 ${newestFirst.p95.toFixed(1)} ms; ${newestFirst.rows.length} rows`;
        if (values['newest-only']) {
          say(`${kind} ${name}: ${newestFigures}`);
          continue;
        }
        const every = await timings((k, p, g) => groups.listFromEveryTrace(k, p, g), kind, projectId, f, repeat);
        const same = isDeepStrictEqual(every.rows, newestFirst.rows);
        say(
          `${kind} ${name}: every trace p50 ${every.p50.toFixed(1)} ms p95 ${every.p95.toFixed(1)} ms; ${newestFigures}, ${same ? 'same' : 'DIFFERENT'}`,
        );
        if (!same) process.exitCode = 1;
      }
    }
  } finally {
    await ds.destroy();
  }
}

void main();
