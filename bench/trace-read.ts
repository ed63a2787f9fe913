import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { PASSWORD, bootstrap, login } from '../test/support/api';
import { launchChromium, logInToDashboard } from '../test/support/browser';
import { largeTraceBatches, postBatches, residentMb } from '../test/support/large-trace';
import { ROOT, Stack } from '../test/support/stack';
import { runBench, saveResults } from './bench-output';

/**
 * Issue 24's case (`npm run bench:trace-read`): one Free tenant writes one trace of `--spans`
 * spans (110,000 by default) with `--input-chars` (4,500) of input each, then reads it: the
 * first page, every page through REST, eight RPC `trace.get` in one batch and eight in
 * parallel, while /api/v1/health is probed every 100 ms; then the dashboard opens it in
 * Chromium (time from navigation to the first rows of the span tree drawn). Prints the figures and writes them to
 * bench/results/trace-read.json. It writes half a gigabyte through the stack: run it on a quiet
 * machine.
 */

const { values } = parseArgs({
  options: { spans: { type: 'string', default: '110000' }, 'input-chars': { type: 'string', default: '4500' } },
});
const SPANS = Number(values.spans);
const INPUT_CHARS = Number(values['input-chars']);
const RESULTS = resolve(ROOT, 'bench', 'results', 'trace-read.json');
const say = (line: string) => process.stderr.write(`bench:trace-read: ${line}\n`);

/** How long `work` takes, and /api/v1/health's slowest answer meanwhile. */
async function timed<T>(stack: Stack, work: () => Promise<T>): Promise<{ result: T; ms: number; slowestHealthMs: number }> {
  let done = false;
  let slowestHealthMs = 0;
  const probe = (async () => {
    while (!done) {
      const t0 = performance.now();
      await (await fetch(`${stack.baseUrl}/api/v1/health`)).text();
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - t0);
      await sleep(100);
    }
  })();
  const t0 = performance.now();
  try {
    const result = await work();
    return { result, ms: Math.round(performance.now() - t0), slowestHealthMs: Math.round(slowestHealthMs) };
  } finally {
    done = true;
    await probe;
  }
}

/** Milliseconds from navigating to the trace's page until the span tree drew its first rows (logged in before). */
async function dashboardOpens(stack: Stack, projectId: string, traceId: string): Promise<number> {
  const chromium = await launchChromium();
  try {
    const page = await chromium.context.newPage();
    await logInToDashboard(page, stack.baseUrl, 'read-bench@spanlog.test', PASSWORD);
    const t0 = performance.now();
    await page.goto(`${stack.baseUrl}/p/${projectId}/traces/${encodeURIComponent(traceId)}`);
    await page.getByRole('tree', { name: 'Span tree' }).getByRole('treeitem').first().waitFor({ timeout: 60_000 });
    return Math.round(performance.now() - t0);
  } finally {
    await chromium.close();
  }
}

async function main(): Promise<void> {
  const stack = await Stack.start({}, { name: 'benchread' });
  try {
    const tenant = await bootstrap(stack, 'read-bench@spanlog.test', 'Read bench', 'read bench', 'free');
    const session = await login(stack, 'read-bench@spanlog.test');
    const traceId = `bench-${Date.now()}`;
    say(`ingesting ${SPANS} spans of ${INPUT_CHARS} characters into one trace`);
    const ingest = await timed(stack, () =>
      postBatches(stack.baseUrl, tenant.apiKey, largeTraceBatches({ traceId, spans: SPANS, inputChars: INPUT_CHARS }), 4),
    );
    const auth = { authorization: `Bearer ${tenant.apiKey}` };
    const ingested = performance.now();
    for (;;) {
      const list = (await (await fetch(`${stack.baseUrl}/api/v1/traces?id=${traceId}`, { headers: auth })).json()) as {
        data: { spanCount: number }[];
      };
      if (list.data[0]?.spanCount === SPANS) break;
      await sleep(500);
    }
    const visibleMs = Math.round(performance.now() - ingested);

    const read = (path: string, headers: Record<string, string> = auth) =>
      fetch(`${stack.baseUrl}${path}`, { headers }).then(async (r) => ({ status: r.status, text: await r.text() }));
    const first = await timed(stack, () => read(`/api/v1/traces/${traceId}`));
    const walk = await timed(stack, async () => {
      let pages = 0;
      let spans = 0;
      let largestBytes = 0;
      let cursor: string | null = null;
      do {
        const page = await read(`/api/v1/traces/${traceId}/spans${cursor ? `?cursor=${cursor}` : ''}`);
        if (page.status !== 200) throw new Error(`a page answered ${page.status}: ${page.text.slice(0, 200)}`);
        const body = JSON.parse(page.text) as { data: unknown[]; meta: { nextCursor: string | null } };
        pages++;
        spans += body.data.length;
        largestBytes = Math.max(largestBytes, page.text.length);
        cursor = body.meta.nextCursor;
      } while (cursor);
      return { pages, spans, largestBytes };
    });
    const input = { projectId: tenant.projectId, id: traceId };
    const rpcAuth = { authorization: `Bearer ${session.access_token}` };
    const batchPath = `/api/trpc/${Array(8).fill('trace.get').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [i, input]))))}`;
    const batch = await timed(stack, () => read(batchPath, rpcAuth));
    await sleep(1_100);
    const parallel = await timed(stack, () =>
      Promise.all(Array.from({ length: 8 }, () => read(`/api/trpc/trace.get?input=${encodeURIComponent(JSON.stringify(input))}`, rpcAuth))),
    );
    const memory = await residentMb(stack.pid('api') as number);
    const dashboardOpenMs = await dashboardOpens(stack, tenant.projectId, traceId);

    const results = {
      at: new Date().toISOString(),
      cores: cpus().length,
      loadAvg1m: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      spans: SPANS,
      inputChars: INPUT_CHARS,
      ingestMs: ingest.ms,
      visibleAfterMs: visibleMs,
      firstPage: { status: first.result.status, bytes: first.result.text.length, ms: first.ms, slowestHealthMs: first.slowestHealthMs },
      everyPage: { ...walk.result, ms: walk.ms, slowestHealthMs: walk.slowestHealthMs },
      rpcBatchOfEight: {
        status: batch.result.status,
        bytes: batch.result.text.length,
        ms: batch.ms,
        slowestHealthMs: batch.slowestHealthMs,
      },
      rpcEightInParallel: { statuses: parallel.result.map((r) => r.status), ms: parallel.ms, slowestHealthMs: parallel.slowestHealthMs },
      apiMemoryMb: { resident: Math.round(memory.rssMb), peak: Math.round(memory.peakMb) },
      dashboardOpenMs,
    };
    await saveResults(RESULTS, results);
  } finally {
    await stack.stop();
  }
}

runBench('bench:trace-read', main);
