import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap, createUser, data, eventually, login, mutate, query } from './support/api';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { type Stack, startStack } from './support/stack';

// Annotation queues in the dashboard (issue 30), in Debian's Chromium against the built apps.
ensureChromium();

const emails = { owner: 'queue-ui-owner@spanlog.test', member: 'queue-ui-member@spanlog.test' };
const QUESTIONS = [
  'How do I reset my password?',
  'Where is my order?',
  'Can I change my plan?',
  'Why was I charged twice?',
  'Do you ship abroad?',
];

describe('annotation queues (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let ownerToken: string;
  const browsers: Headless[] = [];

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: join(process.env.SPANLOG_SCREENSHOTS ?? tmpdir(), `${name}.png`), fullPage: true });
  const openAs = async (email: string, path: string): Promise<Page> => {
    const chromium = await launchChromium();
    browsers.push(chromium);
    const page = await chromium.context.newPage();
    await logInToDashboard(page, stack.baseUrl, email, PASSWORD);
    await page.goto(`${stack.baseUrl}${path}`);
    return page;
  };
  /** The trace of the item on screen, or null once nothing is left for this reviewer. */
  const shownTrace = async (page: Page): Promise<string | null> => {
    const item = page.getByTestId('queue-item').or(page.getByTestId('queue-empty'));
    await item.waitFor();
    return item.getAttribute('data-trace-id');
  };
  /** Waits until the page shows another item than `before` (or none). */
  const movedOn = (page: Page, before: string | null) =>
    page.locator(`[data-testid="queue-empty"], [data-testid="queue-item"]:not([data-trace-id="${before}"])`).first().waitFor();
  const progressText = (page: Page) => page.getByTestId('review-progress').textContent();

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, emails.owner, 'Queue UI', 'support', 'team');
    ownerToken = (await login(stack, emails.owner)).access_token;
    await createUser(stack, emails.member);
    data(await mutate(stack, ownerToken, 'member.add', { orgId: tenant.orgId, email: emails.member, role: 'member' }));
    for (const config of [
      { name: 'accuracy', dataType: 'NUMERIC', minValue: 0, maxValue: 1 },
      {
        name: 'tone',
        dataType: 'CATEGORICAL',
        categories: [
          { label: 'polite', value: 1 },
          { label: 'rude', value: 0 },
        ],
      },
    ]) {
      data(await mutate(stack, ownerToken, 'scoreConfig.create', { projectId: tenant.projectId, ...config }));
    }
    const at = Date.now();
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: QUESTIONS.map((question, i) => ({
        id: `e${i}`,
        type: 'trace-create',
        timestamp: new Date(at + i * 1000).toISOString(),
        body: {
          id: `support-${at}-${i}`,
          name: `support chat ${i + 1}`,
          timestamp: new Date(at + i * 1000).toISOString(),
          input: [
            { role: 'system', content: 'You are a helpful support agent.' },
            { role: 'user', content: question },
          ],
          output: { role: 'assistant', content: `Here is what to do about "${question}": open Settings and follow the steps.` },
        },
      })),
    });
    await eventually(
      async () => data(await query(stack, ownerToken, 'trace.list', { projectId: tenant.projectId })).data,
      (rows: unknown[]) => rows.length === QUESTIONS.length,
    );
  }, 180_000);

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await stack?.stop();
  });

  it('creates a queue, fills it from the trace list, and works through its five traces with the keyboard only: 5/5', async () => {
    const page = await openAs(emails.owner, `/p/${tenant.projectId}/queues`);
    await page.getByRole('button', { name: 'New queue' }).click();
    const form = page.getByRole('form', { name: 'Create an annotation queue' });
    await form.getByLabel('Name').fill('Support answers');
    await form.getByLabel('Description').fill('Is the answer right, and polite?');
    await form.getByRole('checkbox', { name: /accuracy/ }).check();
    await form.getByRole('checkbox', { name: /tone/ }).check();
    await form.getByRole('button', { name: 'Create queue' }).click();
    await page
      .getByRole('table', { name: 'Annotation queues' })
      .getByRole('row', { name: /Support answers/ })
      .waitFor();

    // Two traces picked by hand, then every trace the (empty) filters match: the two are not added twice.
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces`);
    await page.getByRole('checkbox', { name: 'Select trace support chat 1' }).check();
    await page.getByRole('checkbox', { name: 'Select trace support chat 2' }).check();
    const adder = page.getByRole('group', { name: 'Add to annotation queue' });
    await adder.getByRole('button', { name: 'Add 2 selected' }).click();
    await adder.getByText('Added 2').waitFor();
    await adder.getByRole('button', { name: 'Add all matching the filters' }).click();
    await adder.getByText('Added 3 (2 already queued)').waitFor();
    await screenshot(page, 'trace-list-add-to-queue');

    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/queues`);
    const row = page.getByRole('table', { name: 'Annotation queues' }).getByRole('row', { name: /Support answers/ });
    expect(await row.getByTestId('queue-progress').textContent()).toBe('0/5');
    await row.getByRole('link', { name: 'Review' }).click();

    // From here on, keys only.
    let current = await shownTrace(page);
    expect(current).not.toBeNull();
    await page.getByText(QUESTIONS[0] as string, { exact: true }).waitFor();
    await screenshot(page, 'queue-review');
    const first = current;
    await page.keyboard.press('n');
    await movedOn(page, current);
    current = await shownTrace(page);
    await page.keyboard.press('p');
    await movedOn(page, current);
    current = await shownTrace(page);
    expect(current).toBe(first);

    const reviewed = new Set<string>();
    for (let i = 0; i < QUESTIONS.length; i++) {
      expect(current).not.toBeNull();
      reviewed.add(current as string);
      await page.keyboard.press('1');
      await page.keyboard.type(i % 2 ? '0.5' : '0.9');
      await page.keyboard.press('Escape');
      await page.keyboard.press('2');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Escape');
      await page.keyboard.press('c');
      await page.keyboard.type(`checked ${i + 1}`);
      if (i === 0) await screenshot(page, 'queue-review-scored');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Enter');
      await movedOn(page, current);
      current = await shownTrace(page);
    }
    expect(current).toBeNull();
    expect(reviewed.size).toBe(QUESTIONS.length);
    await page.getByText('Nothing left to review in this queue.').waitFor();
    await page.getByTestId('review-progress').getByText('5/5', { exact: true }).waitFor();
    expect(await progressText(page)).toContain(`5/5 completed · 0 pending · 0 skipped · ${emails.owner} 5`);
    await screenshot(page, 'queue-review-done');

    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/queues`);
    expect(await row.getByTestId('queue-progress').textContent()).toBe('5/5');
    expect(await row.textContent()).toContain(`${emails.owner} (5)`);
    await screenshot(page, 'queues');

    // Each trace got the reviewer's two scores, with the comment: ordinary hand scores, read once ingested.
    const scores = await eventually(
      async () =>
        Promise.all(
          [...reviewed].map(
            async (id) => data(await query(stack, ownerToken, 'trace.get', { projectId: tenant.projectId, id })).scores as any[],
          ),
        ),
      (all) => all.every((s) => s.length === 2),
    );
    for (const traceScores of scores) {
      expect(traceScores.map((s) => [s.name, s.source, s.author?.email]).sort()).toEqual([
        ['accuracy', 'ANNOTATION', emails.owner],
        ['tone', 'ANNOTATION', emails.owner],
      ]);
      expect(traceScores.find((s) => s.name === 'tone').value).toBe('polite');
      expect(traceScores[0].comment).toMatch(/^checked \d$/);
      expect([0.9, 0.5]).toContain(traceScores.find((s) => s.name === 'accuracy').value);
    }
  });

  it('never shows two reviewers in two browsers the same item at once', async () => {
    const queue = data(await mutate(stack, ownerToken, 'annotationQueue.create', { projectId: tenant.projectId, name: 'Second look' }));
    const added = data(
      await mutate(stack, ownerToken, 'annotationQueue.addFromFilter', { projectId: tenant.projectId, queueId: queue.id, filter: {} }),
    );
    expect(added.added).toBe(QUESTIONS.length);
    const path = `/p/${tenant.projectId}/queues/${queue.id}`;
    const [owner, member] = await Promise.all([openAs(emails.owner, path), openAs(emails.member, path)]);
    let shown = { owner: await shownTrace(owner), member: await shownTrace(member) };
    const seen: string[] = [];
    let turn: 'owner' | 'member' = 'owner';
    while (shown.owner !== null || shown.member !== null) {
      if (shown.owner !== null && shown.member !== null) expect(shown.owner).not.toBe(shown.member);
      if (shown[turn] === null) turn = turn === 'owner' ? 'member' : 'owner';
      const page = turn === 'owner' ? owner : member;
      seen.push(shown[turn] as string);
      await page.keyboard.press('Enter');
      await movedOn(page, shown[turn]);
      shown = { ...shown, [turn]: await shownTrace(page) };
      turn = turn === 'owner' ? 'member' : 'owner';
    }
    expect(new Set(seen).size).toBe(QUESTIONS.length);
    const progress = data(await query(stack, ownerToken, 'annotationQueue.progress', { projectId: tenant.projectId, queueId: queue.id }));
    expect(progress).toMatchObject({ total: 5, completed: 5, pending: 0 });
    expect(progress.reviewers.map((r: { email: string }) => r.email).sort()).toEqual([emails.member, emails.owner]);
  });
});
