import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap, eventually, send } from './support/api';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { NATIVE_TRACES, traceVisible, write } from './support/ingest';
import { type Stack, startStack } from './support/stack';

ensureChromium();

/**
 * Issue 28 in the dashboard: the span page shows tokens and cost per usage type, the types the
 * price table left out, and where the cost came from; the Overview lists a model ingested
 * without a price. Headless Chromium over the real stack; screenshots in SPANLOG_SCREENSHOTS.
 */
describe('costs in the dashboard (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;
  const traceId = `costs-${Date.now()}`;
  /** The text of each body row's cells. */
  const cellsOf = async (table: Locator): Promise<string[][]> => {
    const rows = table.locator('tbody tr');
    const texts: string[][] = [];
    for (let i = 0; i < (await rows.count()); i++) texts.push(await rows.nth(i).locator('td').allTextContents());
    return texts;
  };
  const shot = (name: string) => page.screenshot({ path: join(process.env.SPANLOG_SCREENSHOTS ?? tmpdir(), name), fullPage: true });

  beforeAll(async () => {
    chromium = await launchChromium();
    stack = await startStack();
    tenant = await bootstrap(stack, 'costs-ui@spanlog.test', 'Costs Org', 'voice bot', 'growth');
    const at = new Date(Date.now() - 60_000).toISOString();
    const generation = (id: string, name: string, model: string, usageDetails: Record<string, number>) => ({
      id: `${traceId}-${id}`,
      type: 'generation-create',
      timestamp: at,
      body: { id: `${traceId}-${id}`, traceId, name, startTime: at, endTime: at, model, usageDetails },
    });
    const run = await write(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        { id: `${traceId}-t`, type: 'trace-create', timestamp: at, body: { id: traceId, name: 'voice answer' } },
        generation('sonnet', 'compose reply', 'claude-sonnet-4-5', { input: 600, cached_input: 400, output: 120, input_audio: 50 }),
        generation('frontier', 'frontier draft', 'acme-frontier-1', { input: 300, output: 80 }),
      ],
    });
    expect(run.status).toBe(201);
    await traceVisible(stack, tenant.apiKey, traceId, run.seq);
    page = await chromium.context.newPage();
    await logInToDashboard(page, stack.baseUrl, 'costs-ui@spanlog.test', PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  it('shows a span’s tokens and cost per usage type, the type without a price, and the definition that priced it', async () => {
    const trace = await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey });
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${trace.body.id}`);
    const tree = page.getByRole('tree', { name: 'Span tree' });
    await tree.getByRole('treeitem', { name: /compose reply/ }).click();
    const table = page.getByTestId('span-usage-costs');
    await table.waitFor();
    const rows = await cellsOf(table);
    // Sonnet 4.5: $3 per million input, $0.30 cache reads, $15 output; no price for audio.
    expect(rows).toEqual([
      ['input', '600', '$0.0018'],
      ['cached_input', '400', '$0.00012'],
      ['output', '120', '$0.0018'],
      ['input_audio', '50', 'no price'],
    ]);
    expect(await page.getByTestId('span-cost-source').textContent()).toContain('price table: claude-sonnet-4-5 (price:claude-sonnet-4-5)');
    await shot('span-costs.png');
  });

  it('lists on the Overview the model ingested without a price, with its usage types, spans and when it was seen', async () => {
    await eventually(
      async () => (await send(stack, 'GET', '/api/v1/costs/unpriced', { token: tenant.apiKey })).body?.models?.length ?? 0,
      (n) => n === 2,
      30_000,
    );
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/overview`);
    const panel = page.getByTestId('unpriced-usage');
    await panel.getByRole('cell', { name: 'acme-frontier-1' }).waitFor();
    expect(await panel.locator('caption').textContent()).toBe('Usage without a price');
    const rows = await cellsOf(panel);
    expect(rows.map((r) => r.slice(0, 3))).toEqual(
      expect.arrayContaining([
        ['acme-frontier-1', 'input (1), output (1)', '1'],
        ['claude-sonnet-4-5', 'input_audio (1)', '1'],
      ]),
    );
    // The per-model table reads "no price" where no call was priced, not "$0", and a partly priced cost as a lower bound.
    const perModel = page.locator('table', { has: page.locator('caption', { hasText: 'Cost and tokens per model' }) });
    await perModel.getByRole('cell', { name: 'no price' }).waitFor();
    const costOf = Object.fromEntries((await cellsOf(perModel)).map((r) => [r[0], r[2]]));
    expect(costOf['acme-frontier-1']).toBe('no price');
    expect(costOf['claude-sonnet-4-5']).toMatch(/^≥ \$0\.00/);
    await panel.scrollIntoViewIfNeeded();
    await shot('overview-unpriced.png');
  });
});
