import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap } from './support/api';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { NATIVE_TRACES, write } from './support/ingest';
import { telemetryRows } from './support/rows';
import { type Stack, startStack } from './support/stack';

ensureChromium();

/** Issue 28: Settings → Models lists the built-in and the project's prices; adding, editing and deleting one re-costs past spans, its progress shown. */
describe('Settings → Models (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;
  const costSources = async () => new Set((await telemetryRows(stack, tenant.projectId)).spans.map((s) => s.cost_source));

  beforeAll(async () => {
    chromium = await launchChromium();
    stack = await startStack();
    tenant = await bootstrap(stack, 'settings-models@spanlog.test', 'Models Org', 'models');
    const at = new Date(Date.now() - 60_000).toISOString();
    const batch = Array.from({ length: 5 }, (_, i) => ({
      id: randomUUID(),
      type: 'generation-create',
      timestamp: at,
      body: { id: `g-${i}`, traceId: 'tr', name: 'answer', model: 'gpt-4o', startTime: at, usage: { input: 1000, output: 100 } },
    }));
    expect((await write(stack, tenant.apiKey, NATIVE_TRACES, { batch })).status).toBe(201);
    page = await chromium.context.newPage();
    await page.setViewportSize({ width: 1024, height: 768 });
    page.on('dialog', (dialog) => void dialog.accept());
    await logInToDashboard(page, stack.baseUrl, 'settings-models@spanlog.test', PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  it('adds a price (the server naming the bad field first), shows the recomputation, edits and deletes it', async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/settings/models`);
    await page.getByRole('tab', { name: 'Models' }).waitFor();
    // Opened once the table is loaded (a count above 0): clicked before, the summary says (0) and the wait is on the query.
    await page.getByText(/^Built-in prices \([1-9]\d*\)$/).click();
    await page.getByRole('cell', { name: 'claude-sonnet-4-5', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Add a model price' }).click();
    const form = page.getByRole('form', { name: 'Add a model price' });
    await form.getByLabel('Model name').fill('gpt-4o');
    await form.getByLabel('Match pattern').fill('gpt-4o');
    await form.getByLabel('Prices (USD per million tokens, one type a line)').fill('input = 1000\noutput = 2000');
    await form.getByRole('button', { name: 'Add' }).click();
    await page.locator('#model-matchPattern-msg.error').waitFor();
    expect(await page.locator('#model-matchPattern-msg').textContent()).toMatch(/^matchPattern: must be anchored/);
    await form.getByLabel('Match pattern').fill('^gpt-4o$');
    await form.getByRole('button', { name: 'Add' }).click();

    const row = page.getByRole('row').filter({ hasText: '^gpt-4o$' });
    await row.waitFor();
    expect(await row.textContent()).toContain('input $1000, output $2000');
    await page.getByText('Past costs recomputed: 5 spans looked at, 5 re-costed', { exact: false }).waitFor({ timeout: 30_000 });
    expect([...(await costSources())][0]).toMatch(/^price:[0-9a-f-]{36}$/);
    await page.screenshot({ path: join(process.env.SPANLOG_SCREENSHOTS ?? tmpdir(), 'settings-models-1024.png'), fullPage: true });

    await row.getByRole('button', { name: 'Edit gpt-4o' }).click();
    const edit = page.getByRole('form', { name: 'Edit model gpt-4o' });
    expect(await edit.getByLabel('Prices (USD per million tokens, one type a line)').inputValue()).toBe('input = 1000\noutput = 2000');
    await edit.getByLabel('Prices (USD per million tokens, one type a line)').fill('input = 3000\noutput = 3000');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row').filter({ hasText: 'input $3000, output $3000' }).waitFor();

    await page.getByRole('row').filter({ hasText: '^gpt-4o$' }).getByRole('button', { name: 'Delete gpt-4o' }).click();
    await page.getByText('Prices of this project').waitFor();
    await page.getByRole('row').filter({ hasText: '^gpt-4o$' }).waitFor({ state: 'detached' });
    const deadline = Date.now() + 30_000;
    while ((await costSources()).has('price:gpt-4o') === false && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await costSources()).toEqual(new Set(['price:gpt-4o']));
  }, 120_000);
});
