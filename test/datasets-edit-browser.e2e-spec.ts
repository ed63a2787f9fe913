import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap, eventually, send } from './support/api';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { type Stack, startStack } from './support/stack';

// Issue 31's dataset writes in the dashboard, in Debian's Chromium against the built apps: items
// added, edited and archived by hand, imported from JSONL and CSV (all or nothing), and a span
// added from the trace view; and a run's own scores in its run table. SPANLOG_SCREENSHOTS=<dir>
// keeps the screenshots.
ensureChromium();

const EMAIL = 'datasets-edit@spanlog.test';
const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(process.env.SPANLOG_SCREENSHOTS ?? tmpdir(), `${name}.png`), fullPage: true });

interface Item {
  id: string;
  input: unknown;
  expectedOutput: unknown;
  metadata: unknown;
  status: string;
  sourceTraceId: string | null;
  sourceSpanId: string | null;
}

describe('dataset items (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;
  let traceUuid: string;

  const v1 = (method: string, path: string, body?: unknown) => send(stack, method, path, { token: tenant.apiKey, body });
  const items = async (): Promise<Item[]> => (await v1('GET', '/api/v1/datasets/support/items?limit=100')).body.data as Item[];
  const itemsTable = () => page.getByRole('table', { name: /^Items/ });
  const importFile = async (name: string, text: string) =>
    page.getByLabel('Import items from a JSONL or CSV file').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, EMAIL, 'Datasets edit', 'support', 'pro');
    for (const name of ['support', 'other']) expect((await v1('POST', '/api/v1/datasets', { name })).status).toBe(201);
    const at = new Date().toISOString();
    const seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        { id: 'e1', type: 'trace-create', timestamp: at, body: { id: 'ticket-1', name: 'triage', input: { ticket: 'refund please' } } },
        {
          id: 'e2',
          type: 'span-create',
          timestamp: at,
          body: {
            id: 'ticket-1-classify',
            traceId: 'ticket-1',
            name: 'classify',
            type: 'LLM',
            startTime: at,
            input: { ticket: 'refund please' },
            output: { label: 'refund' },
          },
        },
      ],
    });
    const trace = await fetch(`${stack.baseUrl}/api/v1/traces/ticket-1?minSeq=${encodeURIComponent(seq)}`, {
      headers: { authorization: `Bearer ${tenant.apiKey}` },
    });
    traceUuid = ((await trace.json()) as { id: string }).id;
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    await logInToDashboard(page, stack.baseUrl, EMAIL, PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  it('adds an item by hand (a JSON error shown as it is typed), edits it and archives it', async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/datasets/support`);
    await page.getByRole('button', { name: 'Add item' }).click();
    const form = page.getByRole('form', { name: 'Add an item' });
    await form.getByLabel('Input (JSON)').fill('{"question": "2+2"');
    await form.getByText(/^Input: not JSON/).waitFor();
    expect(await form.getByRole('button', { name: 'Save item' }).isDisabled()).toBe(true);
    await shot(page, 'item-json-error');
    await form.getByLabel('Input (JSON)').fill('{"question": "2+2"}');
    // Typed key by key, as a person types: the field keeps its focus between keystrokes.
    await form.getByLabel('Expected output (JSON)').pressSequentially('"4"');
    await form.getByLabel('Metadata (JSON)').fill('{"source": "hand"}');
    await form.getByRole('button', { name: 'Save item' }).click();
    const row = itemsTable().getByRole('row', { name: /\{"question":"2\+2"\}/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('ACTIVE');

    await row.getByRole('button', { name: /^Edit item/ }).click();
    const edit = page.getByRole('form', { name: /^Edit item/ });
    expect(await edit.getByLabel('Expected output (JSON)').inputValue()).toBe('"4"');
    await edit.getByLabel('Expected output (JSON)').fill('"four"');
    await edit.getByRole('button', { name: 'Save item' }).click();
    await row.getByText('four').waitFor();
    const [stored] = await items();
    expect(stored).toMatchObject({ input: { question: '2+2' }, expectedOutput: 'four', metadata: { source: 'hand' }, status: 'ACTIVE' });

    await row.getByRole('button', { name: /^Archive item/ }).click();
    await row.getByRole('button', { name: /^Unarchive item/ }).waitFor();
    expect(await row.textContent()).toContain('ARCHIVED');
    expect((await items())[0]).toMatchObject({ id: stored.id, status: 'ARCHIVED', expectedOutput: 'four' });
  });

  it('imports a JSONL file of 3 items; a CSV with one bad line, or a JSONL the API refuses a line of, imports nothing and lists the lines', async () => {
    const jsonl = [
      '{"input":{"q":"a"},"expectedOutput":"A"}',
      '{"input":{"q":"b"},"expectedOutput":"B"}',
      '',
      '{"input":"c","metadata":{"n":3}}',
    ];
    await importFile('three.jsonl', jsonl.join('\n'));
    await page.getByRole('button', { name: 'Import 3 items from three.jsonl' }).click();
    await page.getByText('Imported 3 items.').waitFor();
    await itemsTable().getByText('Items (4)').waitFor();
    expect((await items()).map((i) => i.input)).toEqual([{ question: '2+2' }, { q: 'a' }, { q: 'b' }, 'c']);

    const csv =
      'input,expectedOutput,metadata\r\nWhat is 1+1?,2,\r\n"{""broken"": ",x,\r\n"{""q"":""ok""}","[1,2]","{""tag"":""csv""}"\r\n';
    await importFile('questions.csv', csv);
    const errors = page.getByRole('list', { name: 'Import errors' });
    await errors.waitFor();
    expect(await errors.getByRole('listitem').allTextContents()).toEqual([
      expect.stringMatching(/^Line 3: input: looks like JSON but is not/),
    ]);
    expect(await page.getByText('Nothing was imported: 1 line is at fault.').count()).toBe(1);
    expect(await page.getByRole('button', { name: /^Import \d+ items/ }).count()).toBe(0);
    await shot(page, 'import-errors');

    // Every line reads as JSON, but the API's own rules refuse one: still nothing is stored.
    await importFile('statuses.jsonl', '{"input":"fine"}\n{"input":"odd","status":"DONE"}\n');
    await page.getByRole('button', { name: 'Import 2 items from statuses.jsonl' }).click();
    await errors.getByText(/^Line 2: status: must be one of ACTIVE, ARCHIVED/).waitFor();
    expect(await items()).toHaveLength(4);
  });

  it("adds a span to a dataset from the trace view: the dataset picked, input and output prefilled, the span's ids kept", async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${traceUuid}`);
    await page
      .getByRole('tree', { name: 'Span tree' })
      .getByRole('treeitem', { name: /classify/ })
      .click();
    await page.getByRole('button', { name: 'Add to dataset the span classify' }).click();
    const form = page.getByRole('form', { name: 'Add the span classify to a dataset' });
    expect(JSON.parse(await form.getByLabel('Input (JSON)').inputValue())).toEqual({ ticket: 'refund please' });
    expect(JSON.parse(await form.getByLabel('Expected output (JSON)').inputValue())).toEqual({ label: 'refund' });
    await form.getByLabel('Dataset').selectOption('support');
    await shot(page, 'add-span-to-dataset');
    await form.getByRole('button', { name: 'Save item' }).click();
    await page.getByText('Added to the dataset.').waitFor();
    const added = await eventually(items, (all) => all.length === 5);
    expect(added[4]).toMatchObject({ input: { ticket: 'refund please' }, expectedOutput: { label: 'refund' }, sourceTraceId: traceUuid });
    expect(added[4].sourceSpanId).toEqual(expect.any(String));

    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/datasets/support`);
    await itemsTable().getByText('Items (5)').waitFor();
    await itemsTable().getByRole('link', { name: 'trace' }).click();
    await page.getByRole('heading', { name: 'triage' }).waitFor();
  });

  it('creates a dataset from the Datasets page; an empty name is refused beside the field', async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/datasets`);
    const form = page.getByRole('form', { name: 'Create a dataset' });
    await form.getByRole('button', { name: 'Create dataset' }).click();
    await form.getByText(/^name: /).waitFor();
    await form.getByLabel('Name').pressSequentially('regressions');
    await form.getByLabel('Description').fill('bugs we fixed');
    await form.getByRole('button', { name: 'Create dataset' }).click();
    await page.getByRole('heading', { name: 'regressions' }).waitFor();
    expect((await v1('GET', '/api/v1/datasets/regressions')).body).toMatchObject({ name: 'regressions', description: 'bugs we fixed' });
  });

  it("shows a run's own scores in its run table and in the comparison, the best marked", async () => {
    const [item] = await items();
    const basic = { authorization: `Basic ${Buffer.from(`pk-lf-x:${tenant.apiKey}`).toString('base64')}` };
    for (const [runName, passRate] of [
      ['prompt-v1', 0.6],
      ['prompt-v2', 0.8],
    ] as const) {
      const link = await send(stack, 'POST', '/api/public/dataset-run-items', {
        headers: basic,
        body: { runName, datasetItemId: item.id, traceId: 'ticket-1' },
      });
      expect(link.status).toBe(200);
      const score = await send(stack, 'POST', '/api/public/ingestion', {
        headers: basic,
        body: {
          batch: [
            {
              id: `score-${runName}`,
              type: 'score-create',
              timestamp: new Date().toISOString(),
              body: { datasetRunId: link.body.datasetRunId, name: 'pass_rate', value: passRate },
            },
          ],
        },
      });
      expect(score.body.successes).toEqual([{ id: `score-${runName}`, status: 201 }]);
    }
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/datasets/support`);
    const runs = page.getByRole('table', { name: /^Runs/ });
    await runs.getByRole('columnheader', { name: 'pass_rate (run)' }).waitFor();
    await runs
      .getByRole('row', { name: /prompt-v2/ })
      .getByText('0.80')
      .waitFor();
    expect(await runs.getByRole('row', { name: /prompt-v1/ }).textContent()).toContain('0.60');
    await shot(page, 'dataset-items');

    await page.getByRole('checkbox', { name: 'Compare run prompt-v1' }).check();
    await page.getByRole('checkbox', { name: 'Compare run prompt-v2' }).check();
    await page.getByRole('button', { name: 'Compare 2 runs' }).click();
    const aggregates = page.getByRole('table', { name: 'Aggregates' });
    await aggregates.getByRole('columnheader', { name: 'pass_rate (run)' }).waitFor();
    expect(await aggregates.getByRole('row', { name: /prompt-v2/ }).textContent()).toContain('0.80 ★ (best)');
    expect(await aggregates.getByRole('row', { name: /prompt-v1/ }).textContent()).not.toContain('★');
    await shot(page, 'compare-run-scores');
  });
});
