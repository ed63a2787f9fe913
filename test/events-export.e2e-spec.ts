import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { INGEST_SCHEMAS } from '@app/domain';
import { type Tenant, bootstrap } from './support/api';
import { nativeBatch, smallBatch } from './support/factories';
import { NATIVE_TRACES, ingest, publishToIngest, write } from './support/ingest';
import { type CliResult, type Stack, runCli, startCli, startStack } from './support/stack';

interface Line {
  seq: number;
  subject: string;
  receivedAt: string | null;
  schema: string | null;
  orgId: string;
  projectId: string;
  data: any;
  error?: string;
}

const REQUESTS = 14;
const EVENTS_PER_REQUEST = 1_000;
/**
 * Bytes of padding per event: each request is ~4 MB (stored as a few chunks of under 1 MB), the
 * export ~56 MB, more than the capped heap below could hold.
 */
const PADDING = 4_000;
/** Requests in the shorter of the two exports whose memory is compared. */
const SHORTER = 4;
/**
 * The export's JavaScript heap, in MB: less than the whole export writes. The CLI's own code and
 * libraries hold ~24 MB after a full collection before it reads a message (measured on an empty
 * export), so a tighter cap leaves the export's few messages in flight too little room on a
 * loaded machine, where the collector falls behind.
 */
const HEAP_MB = 48;

/**
 * `spanlog events export` end to end (issue 14 item 4): an organization's stored requests as
 * NDJSON in stream order, object-store chunks resolved, unreadable messages kept as lines,
 * deletions included, bounded by receivedAt, in memory that does not grow with the export.
 */
describe('spanlog events export', () => {
  let stack: Stack;
  let big: Tenant;
  let small: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    big = await bootstrap(stack, 'export@spanlog.test', 'Export', 'big', 'enterprise');
    small = await bootstrap(stack, 'export@spanlog.test', 'Export', 'small', 'enterprise');
  }, 120_000);

  afterAll(() => stack?.stop());

  const paddedBatch = (seed: string) => {
    const { batch } = nativeBatch(EVENTS_PER_REQUEST / 10, 9, seed);
    for (const e of batch) e.body.input = { pad: 'x'.repeat(PADDING) };
    return { batch };
  };
  const parse = (run: CliResult): Line[] => {
    if (run.code !== 0) throw new Error(`export exited ${run.code}: ${run.stderr}`);
    return run.stdout
      ? run.stdout
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as Line)
      : [];
  };
  const exportOf = async (...args: string[]) => parse(await runCli(['events', 'export', ...args], stack.env));
  /**
   * Runs an export with its JavaScript heap capped at `HEAP_MB` and reads the process's peak
   * resident memory (VmHWM) while it runs.
   */
  const exportMeasured = async (...args: string[]): Promise<{ lines: Line[]; peakKb: number; bytes: number }> => {
    const { pid, result } = startCli(['events', 'export', ...args], { ...stack.env, NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` });
    let peakKb = 0;
    let running = true;
    void result.finally(() => (running = false));
    while (running) {
      try {
        peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? peakKb);
      } catch {
        // The process ended between two looks.
      }
      await sleep(20);
    }
    const run = await result;
    return { lines: parse(run), peakKb, bytes: run.stdout.length };
  };

  it('writes 14,000 accepted events each exactly once, in stream order, in memory that does not grow with the export', async () => {
    const sent: string[] = [];
    for (let r = 0; r < REQUESTS; r++) {
      const body = paddedBatch(`req${r}`);
      const res = await write(stack, big.apiKey, NATIVE_TRACES, body);
      expect(res.status).toBe(201);
      expect(res.body.accepted).toBe(EVENTS_PER_REQUEST);
      sent.push(...body.batch.map((e) => e.id));
    }

    const whole = await exportMeasured('--org', big.orgId, '--project', big.projectId);
    expect(whole.lines.length).toBeGreaterThan(REQUESTS);
    for (const line of whole.lines) {
      expect(line).toMatchObject({
        orgId: big.orgId,
        projectId: big.projectId,
        schema: 'ingest.batch/v1',
        receivedAt: expect.any(String),
        subject: `${stack.streamPrefix}ingest.${big.orgId}.${big.projectId}.batch`,
      });
      expect(line.error).toBeUndefined();
    }
    const seqs = whole.lines.map((l) => l.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const ids: string[] = whole.lines.flatMap((l) => l.data.batch.map((e: { id: string }) => e.id));
    expect(ids).toHaveLength(REQUESTS * EVENTS_PER_REQUEST);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...sent].sort());
    // Requests were sent one after another, so their messages follow one another in the stream;
    // a request's chunks may be stored in any order, each chunk keeping the client's order.
    const position = new Map(sent.map((id, i) => [id, i]));
    const requestOf = (id: string) => Math.floor((position.get(id) as number) / EVENTS_PER_REQUEST);
    const requests = whole.lines.map((l) => requestOf(l.data.batch[0].id));
    expect(requests).toEqual([...requests].sort((a, b) => a - b));
    for (const line of whole.lines) {
      const order = line.data.batch.map((e: { id: string }) => position.get(e.id) as number);
      expect(order).toEqual([...order].sort((a: number, b: number) => a - b));
    }

    // Memory does not follow the export's size: the export wrote more than its capped heap could
    // hold, so a process keeping what it wrote would have died of it. Resident memory is shown for
    // the record only: its peak follows the garbage collector's timing too closely to compare.
    expect(whole.bytes / 1024 / 1024).toBeGreaterThan(HEAP_MB);
    const shorterTo = whole.lines.find((l) => requestOf(l.data.batch[0].id) === SHORTER)?.receivedAt as string;
    const shorter = await exportMeasured('--org', big.orgId, '--project', big.projectId, '--to', shorterTo);
    expect(shorter.lines.flatMap((l) => l.data.batch)).toHaveLength(SHORTER * EVENTS_PER_REQUEST);
    const mb = (kb: number) => (kb / 1024).toFixed(0);
    process.stderr.write(
      `events export: ${mb(whole.bytes / 1024)} MB written with a peak of ${mb(whole.peakKb)} MB resident, ${mb(shorter.bytes / 1024)} MB with ${mb(shorter.peakKb)} MB\n`,
    );
    expect(shorter.peakKb).toBeGreaterThan(0);
  }, 300_000);

  it('resolves chunks kept in the object store, writes an unreadable message as a line with its error, and bounds by receivedAt', async () => {
    const huge = 'y'.repeat(1_500_000);
    const at = new Date().toISOString();
    await ingest(stack, small.apiKey, NATIVE_TRACES, {
      batch: [{ id: 'huge-t', type: 'trace-create', timestamp: at, body: { id: 'huge-t', name: 'huge', input: huge } }],
    });
    const nc = await stack.connectNats();
    let poisoned: number;
    try {
      poisoned = await publishToIngest(nc, stack, small, new TextEncoder().encode('{"batch": [ truncated'));
    } finally {
      await nc.close();
    }
    await ingest(stack, small.apiKey, NATIVE_TRACES, smallBatch('after-poison'));

    const all = await exportOf('--org', small.orgId);
    expect(all.some((l) => l.projectId === big.projectId)).toBe(true);
    const blob = all.find((l) => l.data?.batch?.[0]?.id === 'huge-t') as Line;
    expect(blob.data.batch[0].body.input).toBe(huge);
    const bad = all.find((l) => l.seq === poisoned) as Line;
    expect(bad).toMatchObject({
      projectId: small.projectId,
      schema: 'ingest.batch/v1',
      data: null,
      error: expect.stringContaining('data is not JSON'),
    });
    expect(all.at(-1)?.data.batch[0].id).toBe('after-poison-e1');

    // Bounds apply exactly to receivedAt: --from is inclusive, --to exclusive.
    const mine = all.filter((l) => l.projectId === small.projectId);
    const bound = bad.receivedAt as string;
    const from = await exportOf('--org', small.orgId, '--project', small.projectId, '--from', bound);
    const to = await exportOf('--org', small.orgId, '--project', small.projectId, '--to', bound);
    expect(from.map((l) => l.seq)).toEqual(mine.filter((l) => (l.receivedAt as string) >= bound).map((l) => l.seq));
    expect(to.map((l) => l.seq)).toEqual(mine.filter((l) => (l.receivedAt as string) < bound).map((l) => l.seq));
    expect(from[0].seq).toBe(poisoned);
    expect(from.length + to.length).toBe(mine.length);
  }, 120_000);

  it('includes the deletions retention appended', async () => {
    const free = await bootstrap(stack, 'export-free@spanlog.test', 'Export free', 'p', 'free');
    await ingest(stack, free.apiKey, NATIVE_TRACES, smallBatch('expiring'));
    const inTenDays = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const retention = await runCli(['admin', 'retention', 'run', '--now', inTenDays, '--json'], stack.env);
    expect(retention.code).toBe(0);
    const lines = await exportOf('--org', free.orgId);
    const deletions = lines.filter((l) => l.schema === INGEST_SCHEMAS.deleted);
    expect(deletions).toHaveLength(1);
    expect(deletions[0]).toMatchObject({
      subject: `${stack.streamPrefix}ingest.${free.orgId}.${free.projectId}.deleted`,
      data: { reason: 'retention', traceIds: [expect.any(String)] },
    });
  });

  it('refuses bounds in the wrong order, and an organization that is not an id, in one line', async () => {
    const now = new Date().toISOString();
    expect(await runCli(['events', 'export', '--org', big.orgId, '--from', now, '--to', now], stack.env)).toMatchObject({
      code: 1,
      stderr: 'spanlog: --from must be before --to\n',
      stdout: '',
    });
    expect(await runCli(['events', 'export', '--org', 'acme'], stack.env)).toMatchObject({
      code: 1,
      stderr: 'spanlog: --org must be an organization id (a UUID)\n',
    });
  });
});
