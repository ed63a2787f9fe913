import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PLANS } from '../libs/domain/src/limits';
import { PASSWORD, type Tenant, bootstrap, createUser, data, login, mutate } from './support/api';
import { type Box, type Headless, contains, ensureChromium, intersects, launchChromium } from './support/browser';
import { NATIVE_TRACES, SCORES, traceVisible, write } from './support/ingest';
import { type Stack, startStack } from './support/stack';

// The dashboard in Debian's Chromium against the real built apps (issue 15, "What it must show").

// At collection, so a browser that cannot be installed fails this file once, in one line, rather
// than every test with the same error from beforeAll; other test files never pay for the check.
ensureChromium();

describe('dashboard (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;
  const requests: string[] = [];
  const traceId = `dash-${Date.now()}`;

  const agentRun = (id: string, at = new Date()) => {
    const t = (ms: number) => new Date(at.getTime() + ms).toISOString();
    return {
      batch: [
        {
          id: `${id}-e1`,
          type: 'trace-create',
          timestamp: t(0),
          body: {
            id,
            name: `support answer ${id}`,
            userId: 'user-7',
            tags: ['dashboard'],
            input: { question: 'Where is my parcel?' },
            output: 'It ships tomorrow.',
            environment: 'staging',
            release: 'v2.1',
            metadata: { channel: 'chat' },
          },
        },
        {
          id: `${id}-e2`,
          type: 'span-create',
          timestamp: t(0),
          body: { id: `${id}-root`, traceId: id, name: 'agent', type: 'AGENT', startTime: t(0), endTime: t(900) },
        },
        {
          id: `${id}-e3`,
          type: 'span-create',
          timestamp: t(0),
          body: {
            id: `${id}-tool`,
            traceId: id,
            parentObservationId: `${id}-root`,
            name: 'lookup_order',
            type: 'TOOL',
            startTime: t(20),
            endTime: t(220),
            level: 'ERROR',
            statusMessage: 'order service timed out',
          },
        },
        {
          id: `${id}-e4`,
          type: 'generation-create',
          timestamp: t(0),
          body: {
            id: `${id}-gen`,
            traceId: id,
            parentObservationId: `${id}-root`,
            name: 'compose reply',
            startTime: t(250),
            endTime: t(880),
            model: 'gpt-4o-mini',
            usage: { input: 321, output: 54 },
            cost: 0.0031,
            input: [{ role: 'user', content: 'Where is my parcel?' }],
            output: 'It ships tomorrow.',
          },
        },
      ],
    };
  };

  /** The trace rows the list shows now (it is virtualised, but these lists are short). */
  const rowNames = (p: Page) => p.locator('[role="row"][data-trace-id] .strong').allTextContents();
  /** Where the keyboard focus is now (read at once: a locator of ':focus' would wait for one). */
  const focused = (p: Page) =>
    p.evaluate(
      "({ role: document.activeElement?.getAttribute('role') ?? null, text: document.activeElement?.textContent ?? '', id: document.activeElement?.id ?? '' })",
    ) as Promise<{ role: string | null; text: string; id: string }>;

  beforeAll(async () => {
    chromium = await launchChromium();
    // Monitors evaluated every second over the 5-minute bucket still filling, as in monitors.e2e-spec.ts.
    stack = await startStack({ SPANLOG_MONITOR_INTERVAL_MS: '1000', SPANLOG_MONITOR_SETTLE_MS: '-300000' });
    tenant = await bootstrap(stack, 'dash@spanlog.test', 'Dash Org', 'shop assistant', 'growth');
    const run = await write(stack, tenant.apiKey, NATIVE_TRACES, agentRun(traceId));
    expect(run.status).toBeLessThan(300);
    const score = await write(stack, tenant.apiKey, SCORES, { traceId, name: 'helpfulness', value: 0.9, comment: 'clear answer' });
    expect(score.status).toBe(201);
    await traceVisible(stack, tenant.apiKey, traceId, score.seq);
    page = await chromium.context.newPage();
    chromium.context.on('request', (req) => requests.push(req.url()));
    chromium.context.on('dialog', (dialog) => void dialog.accept());
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  it('is served at / with client routes falling back to the index, while API paths keep their JSON 404', async () => {
    const route = await fetch(`${stack.baseUrl}/p/${tenant.projectId}/traces/abc`);
    expect(route.status).toBe(200);
    expect(route.headers.get('content-type')).toMatch(/^text\/html/);
    expect(route.headers.get('cache-control')).toBe('no-cache');
    expect(route.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await route.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const script = await fetch(`${stack.baseUrl}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    for (const path of ['/api/v1/no-such-route', '/api/trpc/a/b', '/assets/missing.js']) {
      const missing = await fetch(`${stack.baseUrl}${path}`);
      expect([path, missing.status, ((await missing.json()) as { error: { code: string } }).error.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    const posted = await fetch(`${stack.baseUrl}/p/x`, { method: 'POST' });
    expect(posted.status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/metrics`)).headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('logs in and lands in the only project, on its traces', async () => {
    await page.goto(`${stack.baseUrl}/`);
    await page.waitForURL('**/login');
    await page.getByLabel('E-mail').fill('dash@spanlog.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**/p/${tenant.projectId}/traces`);
    await page.getByRole('heading', { name: /Traces · shop assistant/ }).waitFor();
  });

  it("keeps the list's time and name whole and the filters apart at 1024×768", async () => {
    await page.setViewportSize({ width: 1024, height: 768 });
    try {
      const row = page.locator('[role="row"][data-trace-id]').filter({ hasText: `support answer ${traceId}` });
      await row.waitFor();
      await page.screenshot({ path: join(process.env.SPANLOG_SCREENSHOTS ?? tmpdir(), 'traces-1024.png') });
      // Cut text: wider (ellipsis) or taller (a clamped second line) than its cell shows.
      const cut = (cell: ReturnType<Page['locator']>) =>
        cell.evaluate((el) => {
          const box = el as unknown as { scrollWidth: number; clientWidth: number; scrollHeight: number; clientHeight: number };
          return box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
        });
      // Past the selection box (annotation queues): time, then name.
      const head = page.locator('[role="row"].head [role="columnheader"]');
      expect([await cut(head.nth(1)), await cut(head.nth(2))]).toEqual([false, false]);
      expect([await cut(row.getByRole('cell').nth(1)), await cut(row.getByRole('cell').nth(2))]).toEqual([false, false]);
      const fields = page.getByRole('form', { name: 'Trace filters' }).locator('label');
      const boxes: { label: Box; input: Box }[] = [];
      for (let i = 0; i < (await fields.count()); i++) {
        const label = await fields.nth(i).boundingBox();
        const input = await fields.nth(i).locator('input').boundingBox();
        if (label && input) boxes.push({ label, input });
      }
      expect(boxes.length).toBeGreaterThan(5);
      for (const [i, a] of boxes.entries()) {
        expect(contains(a.label, a.input)).toBe(true);
        for (const b of boxes.slice(i + 1)) expect(intersects(a.label, b.label)).toBe(false);
      }
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it('finds the trace ingested through REST by name, opens it and shows its span tree, a generation and the score', async () => {
    await page.getByLabel('Name', { exact: true }).fill(`support answer ${traceId}`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const row = page.locator('[role="row"][data-trace-id]').filter({ hasText: `support answer ${traceId}` });
    await row.waitFor();
    expect(await row.textContent()).toContain('helpfulness: 0.90');
    await row.click();
    const tree = page.getByRole('tree', { name: 'Span tree' });
    await tree.waitFor();
    // The trace's own fields, besides its spans'.
    expect(await page.getByRole('region', { name: 'Trace input', exact: true }).textContent()).toContain(
      '"question": "Where is my parcel?"',
    );
    expect(await page.getByRole('region', { name: 'Trace output', exact: true }).textContent()).toBe('It ships tomorrow.');
    expect(await page.getByRole('region', { name: 'Trace metadata', exact: true }).textContent()).toContain('"channel": "chat"');
    expect([await page.getByTestId('trace-environment').textContent(), await page.getByTestId('trace-release').textContent()]).toEqual([
      'staging',
      'v2.1',
    ]);
    expect(await tree.getByRole('treeitem').allTextContents()).toEqual([
      expect.stringContaining('agent'),
      expect.stringContaining('lookup_order'),
      expect.stringContaining('compose reply'),
    ]);
    expect(await tree.getByRole('treeitem', { name: /lookup_order/ }).getAttribute('class')).toContain('wf-error');
    // The operation beside the type (issue 26): in the tree row, and in the span's header.
    expect(await tree.getByRole('treeitem', { name: /lookup_order/ }).textContent()).toContain('TOOL · execute_tool');
    // A tree people can read (issue 26): the LLM call's model without a click, and each row's
    // subtree tokens and cost, the root's those of the whole trace in the header.
    expect(
      await tree
        .getByRole('treeitem', { name: /compose reply/ })
        .getByTestId('span-row-model')
        .textContent(),
    ).toBe('gpt-4o-mini');
    const [tokens, cost] = [await page.getByTestId('trace-tokens').textContent(), await page.getByTestId('trace-cost').textContent()];
    expect([tokens, cost]).toEqual(['375', '$0.0031']);
    const rootTotals = tree.getByRole('treeitem', { name: /^agent/ }).getByTestId('span-subtree-totals');
    expect(await rootTotals.textContent()).toBe(`${tokens} tok · ${cost}`);
    expect(await rootTotals.getAttribute('title')).toBe(`${tokens} tokens · ${cost} in this span and the spans below it`);
    expect(
      await tree
        .getByRole('treeitem', { name: /lookup_order/ })
        .getByTestId('span-subtree-totals')
        .textContent(),
    ).toBe('–');
    await tree.getByRole('treeitem', { name: /compose reply/ }).click();
    expect(await page.getByTestId('span-operation').textContent()).toBe('chat');
    expect(await page.getByTestId('span-model').textContent()).toBe('gpt-4o-mini');
    expect(await page.getByTestId('span-tokens').textContent()).toContain('321 prompt · 54 completion · 375 total');
    const scores = page.getByRole('table', { name: 'Trace scores' });
    expect(await scores.textContent()).toContain('helpfulness');
    expect(await scores.textContent()).toContain('0.90');
  });

  it('opens a trace from the list and moves through its span tree with the keyboard alone', async () => {
    await page.goBack();
    const row = page.locator('[role="row"][data-trace-id]').filter({ hasText: `support answer ${traceId}` });
    await row.waitFor();
    // From the last filter control, Tab reaches the row's selection box (annotation queues), then its own "Open trace" control, and Enter opens it.
    await page.getByRole('button', { name: 'Clear' }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe(`Select trace support answer ${traceId}`);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toEqual(expect.objectContaining({ text: `Open trace support answer ${traceId}` }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `support answer ${traceId}`, level: 1 }).waitFor();
    const tree = page.getByRole('tree', { name: 'Span tree' });
    // The tree is one tab stop (the selected span, the root at first); arrow keys move within it.
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if ((await focused(page)).role === 'treeitem') break;
    }
    expect(await focused(page)).toEqual(expect.objectContaining({ role: 'treeitem', text: expect.stringMatching(/^agent AGENT/) }));
    await page.keyboard.press('ArrowDown');
    expect(await focused(page)).toEqual(expect.objectContaining({ role: 'treeitem', text: expect.stringContaining('lookup_order TOOL') }));
    expect(await tree.getByRole('treeitem', { name: /lookup_order/ }).getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('#span-title').textContent()).toContain('lookup_order');
  });

  it('shows a trace ingested after the page loaded on Refresh, and narrows the list by tag and then by user from the filters', async () => {
    const tag = `fresh-${Date.now()}`;
    await page.getByRole('link', { name: 'Traces', exact: true }).click();
    await page.getByRole('heading', { name: /Traces · shop assistant/ }).waitFor();
    await page.getByLabel('Tags (all of, comma-separated)').fill(tag);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No traces match').waitFor();
    const run = (id: string, userId: string) => ({
      batch: [
        {
          id: `${id}-e`,
          type: 'trace-create',
          timestamp: new Date().toISOString(),
          body: { id, name: `${userId}'s question`, userId, tags: [tag] },
        },
      ],
    });
    await write(stack, tenant.apiKey, NATIVE_TRACES, run(`${traceId}-ada`, 'ada'));
    const late = await write(stack, tenant.apiKey, NATIVE_TRACES, run(`${traceId}-bob`, 'bob'));
    await traceVisible(stack, tenant.apiKey, `${traceId}-bob`, late.seq);
    await traceVisible(stack, tenant.apiKey, `${traceId}-ada`, late.seq);
    expect(await rowNames(page)).toEqual([]);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.locator('[role="row"][data-trace-id]').nth(1).waitFor();
    expect((await rowNames(page)).sort()).toEqual(["ada's question", "bob's question"]);
    await page.getByLabel('User', { exact: true }).fill('ada');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/userId=ada/);
    await page.getByRole('status').filter({ hasText: '1 trace shown' }).waitFor();
    expect(await rowNames(page)).toEqual(["ada's question"]);
  });

  it('creates an API key that ingests, then revokes it and the same key gets 401', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('tab', { name: 'API keys', selected: true }).waitFor();
    await page.getByLabel('Key name').fill('from the browser');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-api-key').textContent()) ?? '';
    expect(secret).not.toBe('');
    const fresh = `${traceId}-key`;
    const accepted = await write(stack, secret, NATIVE_TRACES, agentRun(fresh));
    expect(accepted.status).toBeLessThan(300);
    await traceVisible(stack, tenant.apiKey, fresh, accepted.seq);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Revoke from the browser' }).click();
    await page.getByRole('cell', { name: /^revoked/ }).waitFor();
    expect((await write(stack, secret, NATIVE_TRACES, agentRun(`${traceId}-late`))).status).toBe(401);
  });

  it('creates an evaluator from the form (a SPEC 2.6 message beside its field first), edits, disables it and rotates its secret', async () => {
    await page.getByRole('tab', { name: 'Evaluators' }).click();
    await page.getByRole('button', { name: 'New evaluator' }).click();
    const form = page.getByRole('form', { name: 'Create an evaluator' });
    await form.getByLabel('Name (the score name)').fill('relevance');
    await form.getByLabel('Webhook URL').fill('http://127.0.0.1:9/judge');
    // A span name nothing has, so the webhook is never called while the suite runs.
    await form.getByLabel('Span names (comma-separated, empty for any)').fill('no such span');
    await form.getByLabel('Time-out (ms)').fill('500');
    await form.getByRole('button', { name: 'Create evaluator' }).click();
    await page.locator('#ev-timeoutMs-msg.error').waitFor();
    expect(await page.locator('#ev-timeoutMs-msg').textContent()).toMatch(/^timeoutMs: .*1000/);
    expect(await form.getByLabel('Time-out (ms)').getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByLabel('Retries').getAttribute('aria-invalid')).toBe('false');
    await form.getByLabel('Time-out (ms)').fill('5000');
    await form.getByRole('button', { name: 'Create evaluator' }).click();
    const dialog = page.getByRole('dialog', { name: 'Signing secret' });
    const created = (await dialog.getByTestId('signing-secret').textContent()) ?? '';
    expect(created).toMatch(/^whsec_/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    const row = page.getByRole('row').filter({ hasText: 'relevance' });
    // The list is read again after the creation, while the dialog shows: wait for the new row.
    await row.getByRole('cell', { name: 'enabled' }).waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual(
      expect.arrayContaining(['relevance', 'http://127.0.0.1:9/judge', '1', 'enabled']),
    );

    await row.getByRole('button', { name: 'Edit relevance' }).click();
    const edit = page.getByRole('form', { name: 'Edit evaluator relevance' });
    expect(await edit.getByLabel('Time-out (ms)').inputValue()).toBe('5000');
    await edit.getByLabel('Sample rate').fill('0.25');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await row.getByRole('cell', { name: '0.25' }).waitFor();

    await row.getByRole('button', { name: 'Disable relevance' }).click();
    await row.getByRole('cell', { name: 'disabled' }).waitFor();
    await row.getByRole('button', { name: 'Enable relevance' }).waitFor();

    await row.getByRole('button', { name: 'Rotate secret of relevance' }).click();
    const rotated = (await dialog.getByTestId('signing-secret').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(created);
    await dialog.getByRole('button', { name: 'Close' }).click();
    // Shown once: gone from the page with its dialog, and never in the list. The dialog's close
    // event, which unmounts it, comes a task after the click.
    await page.getByText(rotated).waitFor({ state: 'detached' });
    expect(await page.getByText(rotated).count()).toBe(0);
  });

  it("shows this month's usage against the plan with a daily chart", async () => {
    await page.getByRole('tab', { name: 'Usage' }).click();
    await page.getByText(/Daily usage, \d{4}-\d{2}/).waitFor();
    const daily = page.getByRole('img', { name: /Daily usage/ });
    expect(await daily.locator('canvas').count()).toBeGreaterThan(0);
    // Today's bar, with half a day either side: not an axis running years on (uPlot's own range for one day).
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    const [from, to] = JSON.parse((await daily.getAttribute('data-x-range')) ?? '[]') as number[];
    expect(from).toBeLessThanOrEqual(today);
    expect(to).toBeGreaterThan(today);
    expect(to! - from!).toBeLessThanOrEqual(32 * 86_400_000);
    expect(await page.getByRole('progressbar', { name: /Traces used/ }).count()).toBe(1);
  });

  it('shows overview charts whose data and figures change after an ingestion', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    const traces = page.getByTestId('kpi-traces');
    await traces.waitFor();
    const volume = page.getByRole('img', { name: /Traces and spans over time chart/ });
    expect(await volume.locator('canvas').count()).toBeGreaterThan(0);
    // The chart's own data (what uPlot holds), not only the figure beside it.
    const charted = async () => {
      const totals = JSON.parse((await volume.getAttribute('data-totals')) ?? '{}') as Record<string, number>;
      return {
        points: Number(await volume.getAttribute('data-points')),
        traces: totals.Traces ?? 0,
        spans: totals.Spans ?? 0,
        kpi: Number((await traces.textContent())?.replace(/,/g, '')),
      };
    };
    const before = await charted();
    expect(before.points).toBeGreaterThan(0);
    expect(before.traces).toBe(before.kpi);
    const more = await write(stack, tenant.apiKey, NATIVE_TRACES, agentRun(`${traceId}-more`));
    await traceVisible(stack, tenant.apiKey, `${traceId}-more`, more.seq);
    // The read model is a projection of its own, recounted once its marks are 5 s old, its trace and
    // span counts each in their turn: refresh until it counted the new trace and its three spans.
    const counted = (now: { traces: number; spans: number }) => now.traces > before.traces && now.spans >= before.spans + 3;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByRole('button', { name: 'Refresh' }).waitFor();
      if (counted(await charted())) break;
      await page.waitForTimeout(500);
    }
    const after = await charted();
    expect(after.traces).toBeGreaterThan(before.traces);
    expect(after.spans).toBeGreaterThanOrEqual(before.spans + 3);
    expect(after.kpi).toBe(after.traces);
    // Spans by operation, and LLM calls counted by it (issue 26): the agent runs' generations, not their agent and tool spans.
    const operations = page.getByTestId('operations');
    const callsOf = async (operation: string) =>
      Number(
        (
          await operations
            .getByRole('row')
            .filter({ has: page.getByRole('cell', { name: operation, exact: true }) })
            .getByRole('cell')
            .nth(1)
            .textContent()
        )?.replace(/,/g, ''),
      );
    expect(await callsOf('invoke_agent')).toBeGreaterThanOrEqual(2);
    expect(await callsOf('execute_tool')).toBeGreaterThanOrEqual(2);
    expect(Number((await page.getByTestId('kpi-llm-calls').textContent())?.replace(/,/g, ''))).toBe(await callsOf('chat'));
    // The cost axis reads as dollars that tell its ticks apart, and its x axis is the range asked for.
    const cost = page.getByRole('img', { name: /Cost over time chart/ });
    const labels = JSON.parse((await cost.getAttribute('data-y-labels')) ?? '[]') as string[];
    expect(labels.length).toBeGreaterThan(1);
    for (const label of labels) expect(label).toMatch(/^\$\d/);
    expect(new Set(labels).size).toBe(labels.length);
    const [from, to] = JSON.parse((await cost.getAttribute('data-x-range')) ?? '[]') as number[];
    expect(to! - from!).toBeGreaterThan(23 * 3_600_000);
    expect(to! - from!).toBeLessThan(26 * 3_600_000);
    expect(to).toBeGreaterThanOrEqual(Date.now() - 3_600_000);
    // Nothing hovered: no "--" in a legend.
    expect(await page.locator('.u-legend').filter({ hasText: '--' }).count()).toBe(0);
  }, 90_000);

  it('creates a monitor in the form (a server message beside its field first), which turns ALERT on slow spans, with its history and the nav count', async () => {
    await page.getByRole('link', { name: /^Monitors/ }).click();
    await page.getByRole('heading', { name: /Monitors · shop assistant/ }).waitFor();
    await page.getByRole('button', { name: 'New monitor' }).click();
    const form = page.getByRole('form', { name: 'Create a monitor' });
    await form.getByLabel('Name', { exact: true }).fill('slow answers');
    await form.getByLabel('Metric').selectOption('latency_p95');
    await form.getByLabel('Model (optional)').fill('slow-model');
    await form.getByLabel('Window (minutes)').fill('7');
    await form.getByLabel('Alert when the value is').selectOption('>');
    await form.getByLabel('Threshold').fill('1000');
    await form.getByRole('button', { name: 'Create monitor' }).click();
    // 7 minutes is not a whole number of 5-minute buckets: the server's message shows under the window.
    await page.locator('#mon-windowMinutes-msg.error').waitFor();
    expect(await page.locator('#mon-windowMinutes-msg').textContent()).toMatch(/windowSeconds: .*multiple of 300/);
    expect(await form.getByLabel('Window (minutes)').getAttribute('aria-invalid')).toBe('true');
    // Ten minutes: the window ends with the bucket now filling (SPANLOG_MONITOR_SETTLE_MS -300000) and
    // also holds the one before, so spans of a minute ago are in it whenever the test runs.
    await form.getByLabel('Window (minutes)').fill('10');
    await form.getByRole('button', { name: 'Create monitor' }).click();
    const row = page.locator('tr[data-monitor-id]').filter({ hasText: 'slow answers' });
    await row.waitFor();
    expect(await row.textContent()).toContain('model slow-model');
    expect(await row.textContent()).toContain('10 min');
    expect(await page.getByTestId('nav-alert-count').count()).toBe(0);

    // Five LLM calls of 3 s a minute ago: p95 above 1000 ms.
    const at = Date.now() - 60_000;
    const slow = Array.from({ length: 5 }, (_, i) => ({
      id: `${traceId}-slow-${i}`,
      type: 'generation-create',
      timestamp: new Date(at).toISOString(),
      body: {
        id: `${traceId}-slow-gen-${i}`,
        traceId: `${traceId}-slow`,
        name: 'slow call',
        model: 'slow-model',
        startTime: new Date(at).toISOString(),
        endTime: new Date(at + 3000).toISOString(),
      },
    }));
    expect(
      (
        await write(stack, tenant.apiKey, NATIVE_TRACES, {
          batch: [
            {
              id: `${traceId}-slow-t`,
              type: 'trace-create',
              timestamp: new Date(at).toISOString(),
              body: { id: `${traceId}-slow`, name: 'slow' },
            },
            ...slow,
          ],
        })
      ).status,
    ).toBe(201);

    // The page polls: the badge turns ALERT without a reload, with the value measured.
    await row.locator('[data-state="ALERT"]').waitFor({ timeout: 90_000 });
    expect(await row.locator('.state-badge').textContent()).toBe('ALERT');
    expect(Number((await row.getByTestId('monitor-value').textContent())?.replace(' ms', ''))).toBeGreaterThan(1000);
    expect(await page.getByTestId('nav-alert-count').textContent()).toBe('1 in ALERT');

    await row.getByRole('button', { name: 'History of slow answers' }).click();
    const alert = page.getByTestId('history-row').filter({ has: page.locator('[data-state="ALERT"]') });
    await alert.waitFor({ timeout: 30_000 });
    expect(Number((await alert.getByTestId('history-value').textContent())?.replace(' ms', ''))).toBeGreaterThan(1000);
    expect(await alert.getByTestId('history-threshold').textContent()).toBe('> 1000 ms');
  }, 150_000);

  it('shows a member the monitors, members, API keys and evaluators, with nothing offered to change them', async () => {
    await createUser(stack, 'dash-member@spanlog.test');
    const owner = await login(stack, 'dash@spanlog.test');
    data(await mutate(stack, owner.access_token, 'member.add', { orgId: tenant.orgId, email: 'dash-member@spanlog.test', role: 'member' }));
    const member = await chromium.context.newPage();
    try {
      await member.goto(`${stack.baseUrl}/login`);
      await member.getByLabel('E-mail').fill('dash-member@spanlog.test');
      await member.getByLabel('Password').fill(PASSWORD);
      await member.getByRole('button', { name: 'Log in' }).click();
      await member.waitForURL(`**/p/${tenant.projectId}/traces`);
      await member.getByRole('link', { name: /^Monitors/ }).click();
      // The title names the project once the user's organizations (and so the role) are read.
      await member.getByRole('heading', { name: /Monitors · shop assistant/ }).waitFor();
      const row = member.locator('tr[data-monitor-id]').filter({ hasText: 'slow answers' });
      expect(await row.locator('.state-badge').textContent()).toBe('ALERT');
      expect(await member.getByTestId('nav-alert-count').textContent()).toBe('1 in ALERT');
      expect(await member.getByRole('button', { name: /New monitor|Edit|Delete/ }).count()).toBe(0);
      await row.getByRole('button', { name: 'History of slow answers' }).click();
      await member
        .getByTestId('history-row')
        .filter({ has: member.locator('[data-state="ALERT"]') })
        .waitFor();

      // Members: the seats, and no control a member may not use (the server refuses them with 403).
      await member.getByRole('link', { name: 'Settings' }).click();
      await member.getByRole('tab', { name: 'Members' }).click();
      expect(await member.getByTestId('seats').textContent()).toBe('2 seats used (no limit on the growth plan)');
      await member.getByRole('cell', { name: 'dash-member@spanlog.test' }).waitFor();
      expect(await member.getByRole('button', { name: /Add member|Remove/ }).count()).toBe(0);
      await member.getByText('Owners and admins add and remove members; you are a member.').waitFor();
      await member.getByRole('tab', { name: 'Audit log' }).click();
      await member.getByRole('note').filter({ hasText: 'Owners and admins read the audit log of Dash Org; you are a member.' }).waitFor();

      // API keys and evaluators: the owner's, listed read-only (an active key too, which an owner could revoke).
      await member.getByRole('tab', { name: 'API keys' }).click();
      await member.getByText('Owners and admins create and revoke API keys; you are a member.').waitFor();
      await member.getByRole('cell', { name: 'from the browser' }).waitFor();
      await member.getByRole('cell', { name: 'active' }).first().waitFor();
      expect(await member.getByRole('form', { name: 'Create an API key' }).count()).toBe(0);
      expect(await member.getByRole('button', { name: /Create key|Revoke/ }).count()).toBe(0);
      await member.getByRole('tab', { name: 'Evaluators' }).click();
      await member.getByText('Owners and admins create, edit and delete evaluators; you are a member.').waitFor();
      await member.getByRole('row').filter({ hasText: 'relevance' }).getByRole('cell', { name: 'disabled' }).waitFor();
      expect(await member.getByRole('button', { name: /New evaluator|Edit|Enable|Disable|Rotate secret|Delete/ }).count()).toBe(0);
    } finally {
      await member.close();
    }
  });

  it("counts an owner's members against the plan's seats, and explains the audit log on a plan without one", async () => {
    const pro = await bootstrap(stack, 'dash-pro@spanlog.test', 'Pro Org', 'pro project', 'pro');
    const seats = PLANS.pro.seats as number;
    const owner = await chromium.context.newPage();
    try {
      await owner.goto(`${stack.baseUrl}/login`);
      await owner.getByLabel('E-mail').fill('dash-pro@spanlog.test');
      await owner.getByLabel('Password').fill(PASSWORD);
      await owner.getByRole('button', { name: 'Log in' }).click();
      await owner.waitForURL(`**/p/${pro.projectId}/traces`);
      await owner.getByRole('link', { name: 'Settings' }).click();
      // Tabs by keyboard: the selected tab is the tab stop, the right arrow selects the next and moves focus to it.
      await owner.getByRole('tab', { name: 'API keys', selected: true }).focus();
      await owner.keyboard.press('ArrowRight');
      await owner.getByRole('tab', { name: 'Members', selected: true }).waitFor();
      expect(await focused(owner)).toEqual({ role: 'tab', text: 'Members', id: 'tab-members' });
      const count = owner.getByTestId('seats');
      await count.waitFor();
      expect(await count.textContent()).toBe(`1 of ${seats} seats used`);
      const add = owner.getByRole('form', { name: 'Add a member' });
      expect(await add.getByLabel('Role').locator('option').allTextContents()).toEqual(['member', 'admin', 'owner']);
      await add.getByLabel('E-mail of an existing user').fill('dash-member@spanlog.test');
      await add.getByRole('button', { name: 'Add member' }).click();
      await owner.getByRole('cell', { name: 'dash-member@spanlog.test', exact: true }).waitFor();
      expect(await count.textContent()).toBe(`2 of ${seats} seats used`);
      expect(await owner.getByRole('button', { name: /^Remove/ }).count()).toBe(2);

      await owner.getByRole('tab', { name: 'Audit log' }).click();
      const note = owner.getByRole('note');
      expect(await note.textContent()).toBe('Audit logs come with the Growth, Team and Enterprise plans; Pro Org is on the pro plan.');
      expect(await owner.getByRole('alert').count()).toBe(0);
    } finally {
      await owner.close();
    }
  });

  it('edits the monitor (its threshold raised, it turns OK and the nav count goes) and deletes it', async () => {
    const row = page.locator('tr[data-monitor-id]').filter({ hasText: 'slow answers' });
    await row.getByRole('button', { name: 'Edit slow answers' }).click();
    const form = page.getByRole('form', { name: 'Edit monitor slow answers' });
    expect(await form.getByLabel('Model (optional)').inputValue()).toBe('slow-model');
    await form.getByLabel('Threshold').fill('10000');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await row.locator('[data-state="OK"]').waitFor({ timeout: 90_000 });
    expect(await row.textContent()).toContain('> 10000 ms');
    expect(await page.getByTestId('nav-alert-count').count()).toBe(0);
    await row.getByRole('button', { name: 'Delete slow answers' }).click();
    await page.getByText('No monitors in this project yet').waitFor();
  }, 120_000);

  it('lists prompt templates pushed through REST with their versions and labels, and diffs two versions', async () => {
    const push = async (body: unknown) => {
      expect((await write(stack, tenant.apiKey, '/api/v1/prompt-templates', body)).status).toBe(201);
    };
    await push({ name: 'support/answer', template: 'Be brief.\nAnswer: {{question}}', labels: ['production'], commitMessage: 'first' });
    await push({
      name: 'support/answer',
      template: 'Be brief and kind.\nAnswer: {{question}}',
      labels: ['staging'],
      commitMessage: 'kinder',
    });
    await page.getByRole('link', { name: 'Prompts' }).click();
    const template = page.getByRole('list', { name: 'Prompt templates' }).getByRole('button', { name: /support\/answer/ });
    expect(await template.textContent()).toMatch(/support\/answer v2.*staging/);
    await template.click();
    const versions = page.getByRole('table', { name: 'Versions of support/answer' });
    await versions.waitFor();
    const rows = versions.locator('tbody tr');
    expect(await rows.nth(0).locator('td').allTextContents()).toEqual([
      '2',
      expect.stringContaining('staging'),
      'kinder',
      expect.any(String),
    ]);
    expect(await rows.nth(1).locator('td').allTextContents()).toEqual(['1', 'production', 'first', expect.any(String)]);
    expect(await rows.count()).toBe(2);
    const diff = page.getByLabel('Changes from version 1 to version 2');
    expect(await diff.locator('.removed').textContent()).toBe('- Be brief.\n');
    expect(await diff.locator('.added').textContent()).toBe('+ Be brief and kind.\n');
    expect(await diff.textContent()).toContain('  Answer: {{question}}');
  });

  it('sends an expired session back to the login page', async () => {
    await page.evaluate("sessionStorage.setItem('spanlog.refresh', 'not-a-real-token')");
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/prompts`);
    await page.waitForURL('**/login');
    await page.getByText('Your session has expired').waitFor();
  });

  it('made every request to its own origin', () => {
    const origin = new URL(stack.baseUrl).origin;
    expect(requests.length).toBeGreaterThan(10);
    expect(requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin)).toEqual([]);
  });
});
