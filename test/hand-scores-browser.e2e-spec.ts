import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap, createUser, data, login, mutate } from './support/api';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { type Stack, startStack } from './support/stack';

// Scores given by hand in the dashboard (issue 30), in Debian's Chromium against the built apps.
ensureChromium();

const emails = { owner: 'hand-ui-owner@spanlog.test', admin: 'hand-ui-admin@spanlog.test', member: 'hand-ui-member@spanlog.test' };

describe('hand scores (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  const browsers: Headless[] = [];
  let traceUuid: string;
  const externalTrace = `hand-ui-${Date.now()}`;

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: join(process.env.SPANLOG_SCREENSHOTS ?? tmpdir(), `${name}.png`), fullPage: true });
  /** A browser of its own for each user, signed in on the trace's page. */
  const openTraceAs = async (email: string): Promise<Page> => {
    const chromium = await launchChromium();
    browsers.push(chromium);
    chromium.context.on('dialog', (dialog) => void dialog.accept());
    const page = await chromium.context.newPage();
    await logInToDashboard(page, stack.baseUrl, email, PASSWORD);
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${traceUuid}`);
    await page.getByRole('tree', { name: 'Span tree' }).waitFor();
    return page;
  };
  const spanScores = (page: Page) => page.getByRole('table', { name: 'Span scores' });

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, emails.owner, 'Hand UI', 'review', 'team');
    const owner = (await login(stack, emails.owner)).access_token;
    for (const [email, role] of [
      [emails.admin, 'admin'],
      [emails.member, 'member'],
    ]) {
      await createUser(stack, email);
      data(await mutate(stack, owner, 'member.add', { orgId: tenant.orgId, email, role }));
    }
    data(
      await mutate(stack, owner, 'scoreConfig.create', {
        projectId: tenant.projectId,
        name: 'accuracy',
        dataType: 'NUMERIC',
        minValue: 0,
        maxValue: 1,
      }),
    );
    data(
      await mutate(stack, owner, 'scoreConfig.create', {
        projectId: tenant.projectId,
        name: 'tone',
        dataType: 'CATEGORICAL',
        categories: [
          { label: 'polite', value: 1 },
          { label: 'rude', value: 0 },
        ],
      }),
    );
    const at = new Date().toISOString();
    const seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        { id: 'e1', type: 'trace-create', timestamp: at, body: { id: externalTrace, name: 'to review' } },
        {
          id: 'e2',
          type: 'span-create',
          timestamp: at,
          body: { id: `${externalTrace}-root`, traceId: externalTrace, name: 'agent', type: 'AGENT', startTime: at },
        },
        {
          id: 'e3',
          type: 'span-create',
          timestamp: at,
          body: {
            id: `${externalTrace}-llm`,
            traceId: externalTrace,
            parentObservationId: `${externalTrace}-root`,
            name: 'answer',
            type: 'LLM',
            startTime: at,
          },
        },
      ],
    });
    const trace = await fetch(`${stack.baseUrl}/api/v1/traces/${externalTrace}?minSeq=${encodeURIComponent(seq)}`, {
      headers: { authorization: `Bearer ${tenant.apiKey}` },
    });
    traceUuid = ((await trace.json()) as { id: string }).id;
  }, 180_000);

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await stack?.stop();
  });

  let adminPage: Page;

  it('scores a span by hand: it shows on the span with its author, and the trace list finds it by its score filter', async () => {
    adminPage = await openTraceAs(emails.admin);
    await adminPage
      .getByRole('tree', { name: 'Span tree' })
      .getByRole('treeitem', { name: /answer/ })
      .click();
    await adminPage.getByRole('button', { name: 'Score the span answer' }).click();
    const form = adminPage.getByRole('form', { name: 'Score the span answer' });
    await form.getByLabel('Score config').selectOption({ label: 'accuracy' });
    await form.getByLabel('Value').fill('0.8');
    await form.getByLabel('Comment').fill('right, a little terse');
    await form.getByRole('button', { name: 'Save score' }).click();
    await form.waitFor({ state: 'detached' });
    const row = spanScores(adminPage).getByRole('row', { name: /accuracy/ });
    await row.waitFor();
    expect(await row.textContent()).toEqual(expect.stringContaining('0.80'));
    expect(await row.textContent()).toEqual(expect.stringContaining('ANNOTATION'));
    expect(await row.textContent()).toEqual(expect.stringContaining(emails.admin));
    expect(await row.textContent()).toEqual(expect.stringContaining('right, a little terse'));
    // The trace's scores list it too, the span's under its own table.
    expect(await adminPage.getByRole('table', { name: 'Trace scores' }).textContent()).toContain(emails.admin);
    await screenshot(adminPage, 'hand-score-span');

    // A value outside the config is refused, the reason shown.
    await adminPage.getByRole('button', { name: 'Score the span answer' }).click();
    await form.getByLabel('Score config').selectOption({ label: 'accuracy' });
    await form.getByLabel('Value').fill('3');
    await form.getByRole('button', { name: 'Save score' }).click();
    expect(await form.getByRole('alert').textContent()).toBe('value: must be at most 1 for the score config "accuracy"; got 3');
    await form.getByRole('button', { name: 'Cancel' }).click();

    await adminPage.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces`);
    await adminPage.getByLabel('Score name').fill('accuracy');
    await adminPage.getByLabel('Min score').fill('0.7');
    await adminPage.getByRole('button', { name: 'Apply filters' }).click();
    const listed = adminPage.locator('[role="row"][data-trace-id]').filter({ hasText: 'to review' });
    await listed.waitFor();
    expect(await listed.textContent()).toContain('accuracy: 0.80');
    await screenshot(adminPage, 'hand-score-list-filter');
    await adminPage.getByLabel('Min score').fill('0.9');
    await adminPage.getByRole('button', { name: 'Apply filters' }).click();
    await adminPage.getByText(/No traces/).waitFor();
  });

  it("lets a member score and change their own score, but offers no edit or delete of the admin's; the server refuses it too", async () => {
    const page = await openTraceAs(emails.member);
    await page
      .getByRole('tree', { name: 'Span tree' })
      .getByRole('treeitem', { name: /answer/ })
      .click();
    const adminRow = spanScores(page).getByRole('row', { name: /accuracy/ });
    await adminRow.waitFor();
    expect(await adminRow.getByRole('button').count()).toBe(0);

    await page.getByRole('button', { name: 'Score the span answer' }).click();
    const form = page.getByRole('form', { name: 'Score the span answer' });
    await form.getByLabel('Score config').selectOption({ label: 'tone' });
    await form.getByLabel('Value').selectOption('rude');
    await form.getByRole('button', { name: 'Save score' }).click();
    await form.waitFor({ state: 'detached' });
    const own = spanScores(page).getByRole('row', { name: /tone/ });
    await own.waitFor();
    expect(await own.textContent()).toContain(emails.member);
    await own.getByRole('button', { name: 'Edit score tone' }).click();
    const edit = page.getByRole('form', { name: 'Edit the score tone' });
    await edit.getByLabel('Value').selectOption('polite');
    await edit.getByRole('button', { name: 'Save score' }).click();
    await edit.waitFor({ state: 'detached' });
    await spanScores(page).getByRole('row', { name: /tone/ }).getByText('polite').waitFor();
    await screenshot(page, 'hand-score-member');

    const memberToken = (await login(stack, emails.member)).access_token;
    const adminScore = (await (
      await fetch(`${stack.baseUrl}/api/v1/traces/${traceUuid}`, { headers: { authorization: `Bearer ${tenant.apiKey}` } })
    ).json()) as {
      scores: { id: string; name: string }[];
    };
    const refused = await mutate(stack, memberToken, 'handScore.delete', {
      projectId: tenant.projectId,
      id: adminScore.scores.find((s) => s.name === 'accuracy')?.id,
    });
    expect(refused.status).toBe(403);

    // The admin may remove the member's score.
    await adminPage.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${traceUuid}`);
    const memberRow = adminPage.getByRole('table', { name: 'Trace scores' }).getByRole('row', { name: /tone/ });
    await memberRow.getByRole('button', { name: 'Delete score tone' }).click();
    await memberRow.waitFor({ state: 'detached' });

    // Settings → Scores lists the configs with what each takes.
    await adminPage.goto(`${stack.baseUrl}/p/${tenant.projectId}/settings/scores`);
    const configs = adminPage.getByRole('table', { name: 'Score configs' });
    await configs.getByRole('row', { name: /tone/ }).waitFor();
    expect(await configs.getByRole('row', { name: /tone/ }).textContent()).toContain('polite (1), rude (0)');
    expect(await configs.getByRole('row', { name: /accuracy/ }).textContent()).toContain('0 to 1');
    await screenshot(adminPage, 'settings-scores');
  });
});
