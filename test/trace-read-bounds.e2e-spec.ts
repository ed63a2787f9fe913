import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { RPC_LIMITS, TRACE_READ_LIMITS } from '@app/domain';
import type { Page } from 'playwright-core';
import { PASSWORD, type Session, type Tenant, bootstrap, data, eventually, login, query, send } from './support/api';
import { type Headless, ensureChromium, launchChromium } from './support/browser';
import { largeTraceBatches, postBatches, residentMb } from './support/large-trace';
import { type Stack, runCli, startStack } from './support/stack';

// A missing browser fails this file once, up front (as in dashboard.e2e-spec.ts).
ensureChromium();

/** Issue 24's bound for opening the 110,000-span trace; this trace's first page is as large. */
/** Where the screenshot of the opened trace goes, to look at after a run. */
const SCREENSHOT = '/tmp/spanlog-trace-read-bounds.png';

/**
 * Spans of the large trace: a tenth of the issue's 110,000 (bench/trace-read.ts runs those), so
 * the whole trace is 45 MB of inputs and eight reads of it built whole would pass the API's
 * stated memory; more only makes `npm test` slower.
 */
const SPANS = 10_000;
const INPUT_CHARS = 4_500;
/** A REST page's JSON: its spans' measured fields within pageBytes, plus what the rest of a span and the trace weigh. */
const PAGE_JSON_BYTES = TRACE_READ_LIMITS.rest.pageBytes + TRACE_READ_LIMITS.spans.max * 2_048;
const RPC_PAGE_JSON_BYTES = TRACE_READ_LIMITS.rpc.pageBytes + TRACE_READ_LIMITS.spans.max * 2_048;
/** The API's resident memory at its peak, ingestion of the trace and every read here included (stated in docs/reading.md). */
const API_PEAK_RSS_MB = 800;

interface PageSpan {
  id: string;
  startTime: string;
  input: unknown;
  truncated?: Record<string, number>;
}

/** (startTime, id) strictly increasing: the documented order, with no span twice. */
function expectInOrder(spans: PageSpan[]): void {
  for (let i = 1; i < spans.length; i++) {
    const [a, b] = [spans[i - 1], spans[i]];
    expect(a.startTime < b.startTime || (a.startTime === b.startTime && a.id < b.id)).toBe(true);
  }
}

/** /api/v1/health's slowest answer while `work` runs. */
async function slowestHealth(stack: Stack, work: Promise<unknown>): Promise<number> {
  let done = false;
  let slowest = 0;
  const probe = (async () => {
    while (!done) {
      const t0 = Date.now();
      const res = await fetch(`${stack.baseUrl}/api/v1/health`);
      await res.text();
      slowest = Math.max(slowest, Date.now() - t0);
      await sleep(100);
    }
  })();
  try {
    await work;
  } finally {
    done = true;
    await probe;
  }
  return slowest;
}

/** Issue 24 item 1: a trace read is bounded whatever the trace, and heavy RPC reads are counted per session. */
describe('trace reads bounded by design', () => {
  let stack: Stack;
  let tenant: Tenant;
  let session: Session;
  const traceId = `large-${randomUUID()}`;
  const bigId = `big-${randomUUID()}`;
  const rest = (path: string) => send(stack, 'GET', path, { token: tenant.apiKey });
  const restJson = async (path: string) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
    const text = await res.text();
    return { status: res.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
  };

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'bounds@spanlog.test', 'Bounds', 'bounded', 'free');
    session = await login(stack, 'bounds@spanlog.test');
    await postBatches(stack.baseUrl, tenant.apiKey, largeTraceBatches({ traceId, spans: SPANS, inputChars: INPUT_CHARS }), 4);
    // One span with an input larger than fieldBytes, which a page cuts.
    const at = new Date().toISOString();
    const huge = 'λ'.repeat(Math.ceil(TRACE_READ_LIMITS.rest.fieldBytes / 2) + 1_000);
    const big = await send(stack, 'POST', '/api/v1/traces', {
      token: tenant.apiKey,
      body: {
        batch: [
          {
            id: randomUUID(),
            type: 'span-create',
            timestamp: at,
            body: { id: `${bigId}-s`, traceId: bigId, name: 'huge', startTime: at, input: huge },
          },
        ],
      },
    });
    expect(big.status).toBe(201);
    // More scores than a page holds: a client chooses how many a trace has.
    for (let i = 0; i < 2; i++) {
      const scores = Array.from({ length: 600 }, (_, j) => ({ traceId, name: `s${i}-${j}`, value: j }));
      expect((await send(stack, 'POST', '/api/v1/scores', { token: tenant.apiKey, body: { scores } })).status).toBe(201);
    }
    await eventually(
      async () => (await rest(`/api/v1/traces?id=${traceId}`)).body.data[0],
      (t: any) => t?.spanCount === SPANS,
      120_000,
    );
    // Counted in the database, not read through a trace read: those are what this file tests.
    await eventually(
      async () => (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM scores')).rows[0].n,
      (n) => n === 1_200,
      60_000,
    );
    await eventually(
      async () => (await rest(`/api/v1/traces?id=${bigId}`)).body.data[0],
      (t: any) => t?.spanCount === 1,
    );
  }, 240_000);

  afterAll(() => stack?.stop());

  it('answers GET /api/v1/traces/:id with a bounded first page, the totals and a cursor that walks every span once, in order', async () => {
    const first = await restJson(`/api/v1/traces/${traceId}`);
    expect(first.status).toBe(200);
    expect(first.bytes).toBeLessThan(PAGE_JSON_BYTES);
    expect(first.body).toMatchObject({ externalId: traceId, name: 'large trace', spanCount: SPANS });
    expect(first.body.spans.length).toBeGreaterThan(0);
    expect(first.body.spans.length).toBeLessThanOrEqual(TRACE_READ_LIMITS.spans.default);
    expect(typeof first.body.nextSpansCursor).toBe('string');

    const seen: PageSpan[] = [...first.body.spans];
    let cursor: string | null = first.body.nextSpansCursor;
    while (cursor) {
      const page = await restJson(`/api/v1/traces/${traceId}?spansCursor=${cursor}`);
      expect(page.status).toBe(200);
      expect(page.bytes).toBeLessThan(PAGE_JSON_BYTES);
      seen.push(...page.body.spans);
      cursor = page.body.nextSpansCursor;
    }
    expect(seen.length).toBe(SPANS);
    expectInOrder(seen);
    expect(seen.every((s) => typeof s.input === 'string' && s.input.length === INPUT_CHARS)).toBe(true);
  }, 120_000);

  it('pages the spans alone through GET /traces/:id/spans and RPC trace.spans, the same pages, and a smaller limit on request', async () => {
    const restIds: string[] = [];
    const rpcIds: string[] = [];
    let restCursor: string | null | undefined;
    let rpcCursor: string | null | undefined;
    do {
      const page = await restJson(`/api/v1/traces/${traceId}/spans${restCursor ? `?cursor=${restCursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.bytes).toBeLessThan(PAGE_JSON_BYTES);
      restIds.push(...page.body.data.map((s: PageSpan) => s.id));
      restCursor = page.body.meta.nextCursor;
    } while (restCursor);
    do {
      const answer = await query(stack, session.access_token, 'trace.spans', {
        projectId: tenant.projectId,
        traceId,
        ...(rpcCursor ? { cursor: rpcCursor } : {}),
      });
      expect(Buffer.byteLength(JSON.stringify(answer.body))).toBeLessThan(RPC_PAGE_JSON_BYTES);
      const page = data(answer);
      rpcIds.push(...page.data.map((s: PageSpan) => s.id));
      rpcCursor = page.meta.nextCursor;
    } while (rpcCursor);
    expect(new Set(restIds).size).toBe(SPANS);
    // Smaller pages over the RPC (a batch answers several at once), the same spans in the same order.
    expect(rpcIds.length).toBe(restIds.length);
    expect(rpcIds.every((id, i) => id === restIds[i])).toBe(true);

    const small = await rest(`/api/v1/traces/${traceId}/spans?limit=7`);
    expect(small.body.data.map((s: PageSpan) => s.id)).toEqual(restIds.slice(0, 7));
    const next = await rest(`/api/v1/traces/${traceId}/spans?limit=7&cursor=${small.body.meta.nextCursor}`);
    expect(next.body.data.map((s: PageSpan) => s.id)).toEqual(restIds.slice(7, 14));
    const viaTrace = data(
      await query(stack, session.access_token, 'trace.get', { projectId: tenant.projectId, id: traceId, spansLimit: 7 }),
    );
    expect(viaTrace.spans.map((s: PageSpan) => s.id)).toEqual(restIds.slice(0, 7));
    expect(viaTrace.nextSpansCursor).toBe(small.body.meta.nextCursor);

    for (const [path, message] of [
      [`/api/v1/traces/${traceId}/spans?limit=1001`, 'limit: must be an integer from 1 to 1000'],
      [`/api/v1/traces/${traceId}?spansLimit=0x10`, 'spansLimit: must be an integer from 1 to 1000'],
      [`/api/v1/traces/${traceId}?spansCursor=bm9wZQ`, 'spansCursor: not a cursor returned by this endpoint'],
    ]) {
      const res = await rest(path);
      // Only a refusal's body is compared: a whole trace would not fit in a failure's message.
      expect([res.status, res.status === 400 ? res.body : null]).toEqual([400, { error: { code: 'VALIDATION_ERROR', message } }]);
    }
  }, 120_000);

  it('pages `spanlog traces get`, saying how many spans are shown and the command for the next page', async () => {
    const env = { ...stack.env, SPANLOG_API_KEY: tenant.apiKey };
    const human = await runCli(['traces', 'get', traceId, '--spans-limit', '5', '--api', stack.baseUrl], env);
    expect(human.code).toBe(0);
    const line = new RegExp(`^5 of ${SPANS} spans shown; next page: spanlog traces get ${traceId} --spans-cursor (\\S+)$`, 'm').exec(
      human.stdout,
    );
    expect(line).not.toBeNull();
    const next = await runCli(
      ['traces', 'get', traceId, '--spans-limit', '5', '--spans-cursor', (line as RegExpExecArray)[1], '--json', '--api', stack.baseUrl],
      env,
    );
    expect(next.code).toBe(0);
    const ten = (await rest(`/api/v1/traces/${traceId}/spans?limit=10`)).body.data.map((s: PageSpan) => s.id);
    expect(JSON.parse(next.stdout).spans.map((s: PageSpan) => s.id)).toEqual(ten.slice(5));
  });

  it('cuts a field larger than fieldBytes from a page, names it, and answers the span whole on its own route', async () => {
    const trace = (await rest(`/api/v1/traces/${bigId}`)).body;
    const [span] = trace.spans;
    expect(span.input).toBeNull();
    expect(span.truncated).toEqual({ input: expect.any(Number) });
    expect(span.truncated.input).toBeGreaterThan(TRACE_READ_LIMITS.rest.fieldBytes);
    const whole = await restJson(`/api/v1/traces/${bigId}/spans/${span.externalId}`);
    expect(whole.status).toBe(200);
    expect(whole.body.input).toHaveLength(Math.ceil(TRACE_READ_LIMITS.rest.fieldBytes / 2) + 1_000);
    expect(whole.body.truncated).toBeUndefined();
    const viaRpc = data(
      await query(stack, session.access_token, 'trace.span', { projectId: tenant.projectId, traceId: bigId, spanId: span.id }),
    );
    expect(viaRpc.input).toBe(whole.body.input);
    expect((await rest(`/api/v1/traces/${bigId}/spans/${randomUUID()}`)).status).toBe(404);
  });

  it('pages the scores too: the first page on the trace with their count, the rest through GET /traces/:id/scores', async () => {
    const trace = (await rest(`/api/v1/traces/${traceId}?spansLimit=1`)).body;
    expect(trace.scoreCount).toBe(1_200);
    expect(trace.scores.length).toBe(TRACE_READ_LIMITS.scores.default);
    const names = trace.scores.map((s: { name: string }) => s.name);
    let cursor: string | null = trace.nextScoresCursor;
    while (cursor) {
      const page = (await rest(`/api/v1/traces/${traceId}/scores?cursor=${cursor}`)).body;
      names.push(...page.data.map((s: { name: string }) => s.name));
      cursor = page.meta.nextCursor;
    }
    expect(new Set(names).size).toBe(1_200);
  });

  it('answers eight RPC trace.get in one batch and eight in parallel, /health staying under 1 s and the API under its stated memory', async () => {
    const input = { projectId: tenant.projectId, id: traceId };
    const batch = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [i, input]));
    const path = `/api/trpc/${Array(8).fill('trace.get').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(batch))}`;
    const batched = send(stack, 'GET', path, { token: session.access_token });
    const batchHealthMs = await slowestHealth(stack, batched);
    expect(batchHealthMs).toBeLessThan(1_000);
    const answer = await batched;
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(8);
    for (const call of answer.body) expect(call.result.data.spans.length).toBeLessThanOrEqual(TRACE_READ_LIMITS.spans.max);

    const parallel = Promise.all(Array.from({ length: 8 }, () => query(stack, session.access_token, 'trace.get', input)));
    const parallelHealthMs = await slowestHealth(stack, parallel);
    expect(parallelHealthMs).toBeLessThan(1_000);
    for (const call of await parallel) expect(data(call).spanCount).toBe(SPANS);

    const pid = stack.pid('api');
    expect(pid).not.toBeNull();
    const memory = await residentMb(pid as number);
    process.stderr.write(
      `trace read bounds: slowest /health ${batchHealthMs} ms during the batch, ${parallelHealthMs} ms during the parallel reads; API resident ${memory.rssMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB after ingesting and reading ${SPANS} spans\n`,
    );
    expect(memory.peakMb).toBeLessThan(API_PEAK_RSS_MB);
  }, 120_000);

  it(`refuses an RPC batch of more than ${RPC_LIMITS.batchCalls} calls whole with 400, in tRPC's error shape`, async () => {
    const calls = RPC_LIMITS.batchCalls + 1;
    const batch = Object.fromEntries(Array.from({ length: calls }, (_, i) => [i, { projectId: tenant.projectId, id: traceId }]));
    const res = await send(
      stack,
      'GET',
      `/api/trpc/${Array(calls).fill('trace.get').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(batch))}`,
      { token: session.access_token },
    );
    expect(res.status).toBe(400);
    expect(res.body.error ?? null).toMatchObject({
      message: `batch: at most ${RPC_LIMITS.batchCalls} calls per request, got ${calls}`,
      data: { code: 'BAD_REQUEST', httpStatus: 400 },
    });
  });

  it('limits heavy RPC reads per session with 429 and Retry-After, other sessions and light procedures unaffected', async () => {
    const greedy = await login(stack, 'bounds@spanlog.test');
    const input = { projectId: tenant.projectId, limit: 1 };
    const batch = Object.fromEntries(Array.from({ length: RPC_LIMITS.batchCalls }, (_, i) => [i, input]));
    const path = `/api/trpc/${Array(RPC_LIMITS.batchCalls).fill('trace.list').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(batch))}`;
    const requests = Math.ceil(RPC_LIMITS.heavyCallsPerSecondPerSession / RPC_LIMITS.batchCalls) + 2;
    const answers = await Promise.all(
      Array.from({ length: requests }, () =>
        fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${greedy.access_token}` } }).then(async (r) => ({
          headers: r.headers,
          body: await r.json(),
        })),
      ),
    );
    const results = answers.flatMap((a) => a.body as any[]);
    const refused = results.filter((r) => r.error);
    expect(refused.length).toBeGreaterThan(0);
    expect(results.length - refused.length).toBeLessThanOrEqual(RPC_LIMITS.heavyCallsPerSecondPerSession);
    expect(refused[0].error).toMatchObject({
      message: expect.stringMatching(/^Rate limit exceeded/),
      data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429 },
    });
    expect(answers.find((a) => (a.body as any[]).some((r) => r.error))?.headers.get('retry-after')).toBe('1');

    const single = await query(stack, greedy.access_token, 'trace.list', input);
    if (single.status !== 200)
      expect(single).toMatchObject({ status: 429, body: { error: { data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429 } } } });
    expect((await query(stack, greedy.access_token, 'user.me')).status).toBe(200);
    expect((await query(stack, session.access_token, 'trace.list', input)).status).toBe(200);
    await sleep(1_100);
    expect((await query(stack, greedy.access_token, 'trace.list', input)).status).toBe(200);
  });

  describe('the dashboard', () => {
    let chromium: Headless;
    let page: Page;
    const loadedCount = async () =>
      Number(/Spans \(([\d,]+) of/.exec((await page.locator('#tree-title').textContent()) ?? '')?.[1]?.replace(/,/g, '') ?? NaN);
    const focused = () =>
      page.evaluate("({ role: document.activeElement?.getAttribute('role') ?? null, id: document.activeElement?.id ?? '' })") as Promise<{
        role: string | null;
        id: string;
      }>;

    beforeAll(async () => {
      chromium = await launchChromium();
      page = await chromium.context.newPage();
      await page.goto(`${stack.baseUrl}/`);
      await page.waitForURL('**/login');
      await page.getByLabel('E-mail').fill('bounds@spanlog.test');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`**/p/${tenant.projectId}/traces`);
    }, 60_000);

    afterAll(() => chromium?.close());

    // How fast it opens is measured by `npm run bench:trace-read` (110,000 spans), not here.
    it(`opens the ${SPANS.toLocaleString('en-US')}-span trace with only the rows in view drawn, and loads later pages as the tree scrolls to the end`, async () => {
      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${encodeURIComponent(traceId)}`);
      const tree = page.getByRole('tree', { name: 'Span tree' });
      await tree.getByRole('treeitem').first().waitFor();
      expect(await tree.getByRole('treeitem').count()).toBeLessThan(150);
      const first = await loadedCount();
      expect(first).toBeLessThanOrEqual(TRACE_READ_LIMITS.spans.max);
      await page.screenshot({ path: SCREENSHOT });

      for (let round = 0; round < 3; round++) {
        const before = await loadedCount();
        await page.evaluate("document.querySelector('[data-testid=span-tree-scroll]').scrollTo({ top: 1e9 })");
        await eventually(loadedCount, (n) => n > before, 10_000);
      }
      expect(await loadedCount()).toBeGreaterThan(first * 2);
      expect(await tree.getByRole('treeitem').count()).toBeLessThan(150);
    }, 60_000);

    it('moves through the virtualized tree with the keyboard: End goes to the last loaded span, drawn and focused, and Home back to the first', async () => {
      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${encodeURIComponent(traceId)}`);
      const tree = page.getByRole('tree', { name: 'Span tree' });
      const firstRow = tree.getByRole('treeitem').first();
      await firstRow.waitFor();
      await firstRow.focus();
      const root = await focused();
      await page.keyboard.press('ArrowDown');
      const second = await focused();
      expect(second.role).toBe('treeitem');
      expect(second.id).not.toBe(root.id);
      expect(await page.locator(`[id="${second.id}"]`).getAttribute('aria-selected')).toBe('true');
      await page.keyboard.press('End');
      const last = await eventually(focused, (f) => f.role === 'treeitem' && f.id !== second.id);
      const name = /span \d+/.exec((await page.locator(`[id="${last.id}"]`).textContent()) ?? '')?.[0];
      expect(name).toBeDefined();
      expect(await page.locator('#span-title').textContent()).toContain(name);
      await page.keyboard.press('Home');
      expect((await eventually(focused, (f) => f.id === root.id)).role).toBe('treeitem');
    }, 60_000);
  });
});
