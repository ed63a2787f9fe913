import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap, send } from './support/api';
import { NATIVE_TRACES, write } from './support/ingest';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { type Stack, startStack } from './support/stack';

// Issue 26, "Sessions" and "users": a session's traces read as one conversation with its totals,
// a user's page lists their traces, and session and user values link to those pages from the
// trace list and the trace page; and those pages usable at 1024×768. SPANLOG_SCREENSHOTS=<dir>
// saves each page (the 1024 ones, of the viewport, are docs/screenshots/).

ensureChromium();

describe('sessions and users pages (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;
  const run = randomUUID().slice(0, 8);
  const sessionId = `support-chat-${run}`;
  const userId = `ada-${run}`;
  const t0 = Date.now() - 10 * 60_000;
  const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
  const QUESTIONS = ['Where is parcel 42?', 'When will it arrive?', 'Can I change the address?'];
  const ANSWERS = ['Parcel 42 is in Lyon.', 'It arrives tomorrow before noon.', 'Yes: reply with the new address.'];

  /** Turn i of the chat: a trace whose input is the user's message and whose output is the assistant's, with one generation. */
  const turn = (i: number) => {
    const id = `${sessionId}-turn-${i}`;
    return [
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: at(i * 60),
        body: {
          id,
          name: `support turn ${i + 1}`,
          sessionId,
          userId,
          timestamp: at(i * 60),
          input: [{ role: 'user', content: QUESTIONS[i] }],
          output: { role: 'assistant', content: ANSWERS[i] },
        },
      },
      {
        id: randomUUID(),
        type: 'generation-create',
        timestamp: at(i * 60),
        body: {
          id: `${id}-g`,
          traceId: id,
          name: 'chat gpt-4o',
          model: 'gpt-4o',
          startTime: at(i * 60),
          endTime: at(i * 60 + 2),
          usage: { input: 100, output: 20 },
          cost: 0.01,
        },
      },
    ];
  };

  /** An agent's run with a tree of spans whose names are as long as real ones. */
  const agentTraceId = `agent-run-${run}`;
  const agentRun = () => {
    const span = (id: string, parent: string | undefined, name: string, type: string, from: number, to: number, extra: object = {}) => ({
      id: randomUUID(),
      type: type === 'GENERATION' ? 'generation-create' : 'span-create',
      timestamp: at(from),
      body: {
        id: `${agentTraceId}-${id}`,
        traceId: agentTraceId,
        parentObservationId: parent && `${agentTraceId}-${parent}`,
        name,
        ...(type === 'GENERATION' ? {} : { type }),
        startTime: at(from),
        endTime: at(to),
        ...extra,
      },
    });
    return [
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: at(200),
        body: {
          id: agentTraceId,
          name: 'order support agent',
          userId: `bob-${run}`,
          input: [{ role: 'user', content: 'Cancel order 7' }],
          output: { role: 'assistant', content: 'Order 7 is cancelled.' },
        },
      },
      span('root', undefined, 'order support agent', 'AGENT', 200, 206),
      span('plan', 'root', 'plan next step with gpt-4o-mini', 'GENERATION', 200, 201, {
        model: 'gpt-4o-mini',
        usage: { input: 1200, output: 80 },
        cost: 0.0004,
      }),
      span('tool', 'root', 'retrieve_customer_order_history', 'TOOL', 201, 203),
      span('cancel', 'root', 'cancel_order_in_fulfilment_system', 'TOOL', 203, 205),
      span('reply', 'root', 'compose the confirmation reply', 'GENERATION', 205, 206, {
        model: 'gpt-4o-mini',
        usage: { input: 1500, output: 40 },
        cost: 0.0005,
      }),
    ];
  };

  const screenshot = async (name: string, fullPage = true) => {
    const dir = process.env.SPANLOG_SCREENSHOTS;
    if (dir) await page.screenshot({ path: resolve(dir, `${name}.png`), fullPage });
  };

  beforeAll(async () => {
    chromium = await launchChromium();
    stack = await startStack();
    tenant = await bootstrap(stack, 'sessions-ui@spanlog.test', 'Sessions Org', 'support bot');
    const sent = await write(stack, tenant.apiKey, NATIVE_TRACES, { batch: [0, 1, 2].flatMap(turn) });
    expect(sent.status).toBe(201);
    const scored = await send(stack, 'POST', '/api/v1/scores', {
      token: tenant.apiKey,
      body: {
        scores: [
          { traceId: `${sessionId}-turn-0`, name: 'helpful', value: 1 },
          { traceId: `${sessionId}-turn-2`, name: 'helpful', value: 0.5 },
        ],
      },
    });
    expect(scored.status).toBe(201);
    // Another user's trace, which the user's page must not list.
    const other = await write(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        {
          id: randomUUID(),
          type: 'trace-create',
          timestamp: at(5),
          body: { id: `other-${run}`, name: 'someone else', userId: `bob-${run}` },
        },
        ...agentRun(),
      ],
    });
    const visible = await send(stack, 'GET', `/api/v1/sessions/${sessionId}?minSeq=${other.seq}`, { token: tenant.apiKey });
    expect(visible.status).toBe(200);
    page = await chromium.context.newPage();
    await logInToDashboard(page, stack.baseUrl, 'sessions-ui@spanlog.test', PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  it('a session with three traces reads as one conversation in time order, with its totals', async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/sessions`);
    const row = page.locator(`tr[data-session-id="${sessionId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('$0.0300');
    await screenshot('sessions-page');
    await row.getByRole('link', { name: sessionId }).click();
    await page.getByRole('heading', { name: `Session ${sessionId}` }).waitFor();
    expect(await page.getByTestId('session-traces').textContent()).toBe('3');
    expect(await page.getByTestId('session-tokens').textContent()).toBe('360');
    expect(await page.getByTestId('session-cost').textContent()).toBe('$0.0300');
    expect(await page.getByTestId('session-duration').textContent()).toBe('2 min 2 s');
    expect(await page.getByTestId('session-scores').textContent()).toContain('helpful: 0.75 (2)');
    const turns = page.locator('.session-turn');
    expect(await turns.locator('h2').allTextContents()).toEqual(['#1 support turn 1', '#2 support turn 2', '#3 support turn 3']);
    for (const i of [0, 1, 2]) {
      const input = page.getByRole('region', { name: `Trace ${i + 1} input`, exact: true });
      const output = page.getByRole('region', { name: `Trace ${i + 1} output`, exact: true });
      expect(await input.locator('.turn-role').allTextContents()).toEqual(['user']);
      expect(await input.textContent()).toContain(QUESTIONS[i]);
      expect(await output.locator('.turn-role').allTextContents()).toEqual(['assistant']);
      expect(await output.textContent()).toContain(ANSWERS[i]);
    }
    await screenshot('session-page');
    await turns.nth(1).getByRole('link', { name: 'support turn 2' }).click();
    await page.getByRole('heading', { name: 'support turn 2', level: 1 }).waitFor();
  });

  it('a user’s page lists their traces, each linking to its trace page, with their totals', async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/users`);
    const row = page.locator(`tr[data-user-id="${userId}"]`);
    await row.waitFor();
    await screenshot('users-page');
    await row.getByRole('link', { name: userId }).click();
    await page.getByRole('heading', { name: `User ${userId}` }).waitFor();
    expect(await page.getByTestId('user-traces').textContent()).toBe('3');
    expect(await page.getByTestId('user-tokens').textContent()).toBe('360');
    const traces = page.getByRole('table', { name: 'Traces of the user' });
    await traces.locator('tbody tr').nth(2).waitFor();
    expect(await traces.locator('tbody tr td.strong').allTextContents()).toEqual(['support turn 3', 'support turn 2', 'support turn 1']);
    await screenshot('user-page');
    await traces.getByRole('link', { name: 'support turn 1' }).click();
    await page.getByRole('heading', { name: 'support turn 1', level: 1 }).waitFor();
  });

  it('session and user values link to their pages from the trace list and the trace page', async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces`);
    const row = page.locator(`[data-trace-id]`, { hasText: 'support turn 3' });
    await row.waitFor();
    await screenshot('trace-list-links');
    await row.getByRole('link', { name: sessionId }).click();
    await page.getByRole('heading', { name: `Session ${sessionId}` }).waitFor();
    await page.goBack();
    await page.locator(`[data-trace-id]`, { hasText: 'support turn 3' }).getByRole('link', { name: userId }).click();
    await page.getByRole('heading', { name: `User ${userId}` }).waitFor();
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${sessionId}-turn-0`);
    await page.getByRole('heading', { name: 'support turn 1', level: 1 }).waitFor();
    await page.locator('dl.facts').getByRole('link', { name: sessionId }).click();
    await page.getByRole('heading', { name: `Session ${sessionId}` }).waitFor();
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: /^Users/ }).waitFor();
  });

  it('is usable at 1024×768: the nav on one line with Log out, nothing wider than the page, previews as the messages’ text, span names whole', async () => {
    await page.setViewportSize({ width: 1024, height: 768 });
    try {
      /**
       * How far the page and the header reach past their width, and which elements of `selector`
       * (or of their descendants) hold content wider than they are, with by how much: none when all fit.
       */
      // In the page as text: the test's own compiler knows no DOM.
      const overflow = (selector: string) =>
        page.evaluate(`(() => {
          const over = (el) => Math.max(0, el.scrollWidth - el.clientWidth);
          const inside = [...document.querySelectorAll(${JSON.stringify(selector)})].flatMap((el) => [el, ...el.querySelectorAll('*')]);
          const wide = inside.filter((el) => getComputedStyle(el).overflowX !== 'hidden' && over(el) > 0).map((el) => el.tagName.toLowerCase() + '.' + el.className + ': ' + over(el));
          return { page: Math.max(0, document.documentElement.scrollWidth - window.innerWidth), header: over(document.querySelector('header.top')), wide: [...new Set(wide)] };
        })()`) as Promise<{ page: number; header: number; wide: string[] }>;
      const nothingOver = { page: 0, header: 0, wide: [] };

      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces`);
      const row = page.locator('[role="row"][data-trace-id]', { hasText: 'support turn 3' });
      await row.waitFor();
      await screenshot('traces-1024', false);
      expect(await overflow('.grid-table, .grid-row')).toEqual(nothingOver);
      // "Log out" on the navigation's line: its middle within the nav's height, and the header one line high.
      const nav = await page.getByRole('navigation', { name: 'Project' }).boundingBox();
      const logOut = await page.getByRole('button', { name: 'Log out' }).boundingBox();
      const header = await page.locator('header.top').boundingBox();
      expect(nav && logOut && header).toBeTruthy();
      if (!nav || !logOut || !header) return;
      expect(logOut.y + logOut.height / 2).toBeGreaterThan(nav.y);
      expect(logOut.y + logOut.height / 2).toBeLessThan(nav.y + nav.height);
      expect(logOut.x + logOut.width).toBeLessThanOrEqual(1024);
      expect(header.height).toBeLessThan(2 * Math.max(nav.height, logOut.height));
      // The previews: what the user asked and what the assistant answered, not their JSON.
      expect([await row.getByTestId('row-input').textContent(), await row.getByTestId('row-output').textContent()]).toEqual([
        QUESTIONS[2],
        ANSWERS[2],
      ]);

      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${agentTraceId}`);
      const tree = page.getByRole('tree', { name: 'Span tree' });
      await tree.getByRole('treeitem').nth(4).waitFor();
      await screenshot('trace-1024', false);
      expect(await overflow('.wf-scroll')).toEqual(nothingOver);
      // Every span's name whole in its row, beside its type and model.
      const labels = tree.locator('.wf-label');
      const cut = await labels.evaluateAll((els) =>
        (els as unknown as { scrollWidth: number; clientWidth: number; textContent: string }[])
          .filter((el) => el.scrollWidth > el.clientWidth + 1)
          .map((el) => el.textContent),
      );
      expect(cut).toEqual([]);
      expect(await labels.allTextContents()).toEqual([
        'order support agent',
        'plan next step with gpt-4o-mini',
        'retrieve_customer_order_history',
        'cancel_order_in_fulfilment_system',
        'compose the confirmation reply',
      ]);

      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/sessions/${sessionId}`);
      await page.getByRole('region', { name: 'Trace 3 output', exact: true }).waitFor();
      await screenshot('session-1024', false);
      expect(await overflow('.session-turn')).toEqual(nothingOver);

      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/users`);
      await page.locator(`tr[data-user-id="${userId}"]`).waitFor();
      await screenshot('users-1024', false);
      expect(await overflow('table.plain')).toEqual(nothingOver);

      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/users/${userId}`);
      const traces = page.getByRole('table', { name: 'Traces of the user' });
      await traces.locator('tbody tr').nth(2).waitFor();
      expect(await overflow('table.plain')).toEqual(nothingOver);
      const first = traces.locator('tbody tr').nth(0).locator('td.preview');
      expect(await first.allTextContents()).toEqual([QUESTIONS[2], ANSWERS[2]]);
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });
});
