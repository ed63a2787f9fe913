import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { RunResults } from '../apps/api/src/datasets/datasets.service';
import { PASSWORD, type Tenant, bootstrap, eventually, send } from './support/api';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { NATIVE_TRACES, SCORES, ingest, laterSeq, traceVisible } from './support/ingest';
import { type Stack, startStack } from './support/stack';

// Issue 31's dashboard: a dataset's runs compared side by side and a run exported as CSV, in
// Debian's Chromium against the built apps. SPANLOG_SCREENSHOTS=<dir> keeps the screenshot.
ensureChromium();

const EMAIL = 'datasets-ui@spanlog.test';
const COUNTRIES = ['France', 'Peru', 'Côte d’Ivoire'];
/** Per run, per country: the output, the exact-match score and the latency the run's trace shows. */
const RUNS: Record<string, Record<string, { output: string; exact: number; ms: number }>> = {
  baseline: {
    France: { output: 'Paris', exact: 1, ms: 400 },
    Peru: { output: 'Cusco', exact: 0, ms: 900 },
    'Côte d’Ivoire': { output: 'Abidjan, the largest city', exact: 0, ms: 700 },
  },
  improved: {
    France: { output: 'Paris', exact: 1, ms: 300 },
    Peru: { output: 'Lima', exact: 1, ms: 500 },
    'Côte d’Ivoire': { output: 'Yamoussoukro', exact: 1, ms: 600 },
  },
};
const itemId = (country: string) => `capital-${country.replace(/\W+/g, '-')}`;

describe('datasets (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;

  const v1 = (method: string, path: string, body?: unknown) => send(stack, method, path, { token: tenant.apiKey, body });

  /** One run's traces (output, a span of the run's latency, the exact score), then its run items through Langfuse's route. */
  const runExperiment = async (runName: string) => {
    const start = Date.parse('2026-11-20T10:00:00Z');
    let seq = '';
    for (const country of COUNTRIES) {
      const { output, exact, ms } = RUNS[runName][country];
      const traceId = `${runName}-${itemId(country)}`;
      const [from, to] = [new Date(start).toISOString(), new Date(start + ms).toISOString()];
      await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
        batch: [
          { id: `${traceId}-t`, type: 'trace-create', timestamp: from, body: { id: traceId, name: 'capital', input: { country }, output } },
          {
            id: `${traceId}-s`,
            type: 'span-create',
            timestamp: from,
            body: { id: `${traceId}-s`, traceId, name: 'answer', startTime: from, endTime: to },
          },
        ],
      });
      seq = await ingest(stack, tenant.apiKey, SCORES, { traceId, name: 'exact', value: exact });
      await traceVisible(stack, tenant.apiKey, traceId, seq);
      const runItem = await fetch(`${stack.baseUrl}/api/public/dataset-run-items`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`pk-lf-x:${tenant.apiKey}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ runName, datasetItemId: itemId(country), traceId }),
      });
      expect(runItem.status).toBe(200);
    }
    // Every item of the run readable with its score before the browser looks.
    await eventually(
      async () => {
        const minSeq = encodeURIComponent(await laterSeq(stack, tenant.apiKey));
        return (await v1('GET', `/api/v1/datasets/capitals/runs/${runName}?minSeq=${minSeq}`)).body as RunResults;
      },
      (run) => run.items?.length === COUNTRIES.length && run.items.every((i) => i.scores.length === 1 && i.latencyMs !== null),
    );
  };

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, EMAIL, 'Datasets UI', 'evals', 'pro');
    expect((await v1('POST', '/api/v1/datasets', { name: 'capitals', description: 'one question per country' })).status).toBe(201);
    const items = COUNTRIES.map((country) => ({
      id: itemId(country),
      input: { country },
      expectedOutput: country === 'Peru' ? 'Lima' : country === 'France' ? 'Paris' : 'Yamoussoukro',
    }));
    expect((await v1('POST', '/api/v1/datasets/capitals/items', { items })).status).toBe(201);
    await runExperiment('baseline');
    await runExperiment('improved');
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    await logInToDashboard(page, stack.baseUrl, EMAIL, PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  it('lists the dataset, shows its runs, and compares two runs per item with the best score and differing outputs marked', async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Datasets' }).click();
    const listed = page.getByRole('table', { name: 'Datasets' }).getByRole('row', { name: /capitals/ });
    await listed.getByText('improved (').waitFor();
    expect((await listed.getByRole('cell').allTextContents()).slice(0, 4)).toEqual(['capitals', 'one question per country', '3', '2']);

    await listed.getByRole('link', { name: 'capitals' }).click();
    const runs = page.getByRole('table', { name: /^Runs/ });
    const improvedRun = runs.getByRole('row', { name: /improved/ });
    await improvedRun.getByRole('cell', { name: '600 ms' }).first().waitFor();
    // Items 3, exact mean 1, p50 500 ms, p95 600 ms; the baseline's mean is a third.
    expect(await improvedRun.textContent()).toMatch(/improved.*3.*1.*500 ms.*600 ms/);
    expect(await runs.getByRole('row', { name: /baseline/ }).textContent()).toMatch(/baseline.*3.*0\.33.*700 ms.*900 ms/);
    expect(await page.getByRole('table', { name: /^Items/ }).textContent()).toContain('{"country":"Peru"}');

    await page.getByRole('checkbox', { name: 'Compare run baseline' }).check();
    await page.getByRole('checkbox', { name: 'Compare run improved' }).check();
    await page.getByRole('button', { name: 'Compare 2 runs' }).click();

    const aggregates = page.getByRole('table', { name: 'Aggregates' });
    await aggregates.waitFor();
    expect(await aggregates.getByRole('row', { name: /improved/ }).textContent()).toMatch(/improved3\s*1 ★ \(best\)\s*500 ms600 ms/);
    expect(await aggregates.getByRole('row', { name: /baseline/ }).textContent()).toMatch(/baseline3\s*0\.33\s*700 ms900 ms/);

    const compared = page.getByRole('table', { name: /^Items compared/ });
    const peru = compared.locator('tr[data-item-id="capital-Peru"]');
    const [baselinePeru, improvedPeru] = [peru.locator('td[data-run="baseline"]'), peru.locator('td[data-run="improved"]')];
    expect(await baselinePeru.textContent()).toMatch(/^Cusco \(output differs\)exact0latency900 ms/);
    expect(await improvedPeru.textContent()).toMatch(/^Lima \(output differs\)exact1 ★ \(best\)latency500 ms/);
    // The differing outputs are marked on the row and on each result, the best score on the better run only.
    expect(await peru.getByText('outputs differ').count()).toBe(1);
    expect((await improvedPeru.getAttribute('class'))?.split(' ')).toContain('differs');
    expect(await improvedPeru.locator('mark.best').count()).toBe(1);
    expect(await baselinePeru.locator('mark.best').count()).toBe(0);
    // Where both runs agree nothing is marked.
    const france = compared.locator('tr[data-item-id="capital-France"]');
    expect(await france.getByText('outputs differ').count()).toBe(0);
    expect(await france.locator('mark.best').count()).toBe(0);

    const dir = process.env.SPANLOG_SCREENSHOTS ?? tmpdir();
    await page.screenshot({ path: join(dir, 'compare.png'), fullPage: true });

    // Each result links to the trace of its run.
    await improvedPeru.getByRole('link', { name: 'Trace of run improved' }).click();
    await page.getByRole('tree', { name: 'Span tree' }).waitFor();
    expect(await page.getByRole('tree', { name: 'Span tree' }).textContent()).toContain('answer');
  });

  it("exports a run's items as CSV, quoting commas and quotes, in UTF-8", async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/datasets/capitals`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export run baseline as CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('capitals-baseline.csv');
    const csv = readFileSync((await download.path()) as string, 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('\uFEFFdatasetItemId,traceId,spanId,input,expectedOutput,output,latencyMs,totalTokens,totalCost,exact');
    // The trace by its id (a UUID); the input's quotes doubled, the output's comma quoted, the accents kept.
    const ivoire = lines.find((l) => l.startsWith('capital-C-te-d-Ivoire,'))?.replace(/^([^,]+),[0-9a-f-]{36},/, '$1,<trace>,');
    expect(ivoire).toBe(
      `capital-C-te-d-Ivoire,<trace>,,"{""country"":""Côte d’Ivoire""}",Yamoussoukro,"Abidjan, the largest city",700,,,0`,
    );
    expect(lines).toHaveLength(COUNTRIES.length + 2);
    await page.screenshot({ path: join(process.env.SPANLOG_SCREENSHOTS ?? tmpdir(), 'dataset.png'), fullPage: true });
  });
});
