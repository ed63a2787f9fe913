import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap, eventually, send } from './support/api';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { NATIVE_TRACES, ingest, traceVisible } from './support/ingest';
import { llmCallEvents } from './support/factories';
import { type Stack, startStack } from './support/stack';

// Issue 29's dashboard: LLM connections, an LLM judge made, tested and watched through its Runs
// tab, in Debian's Chromium against the built apps and an OpenAI-compatible server on loopback.
// SPANLOG_SCREENSHOTS=<dir> keeps the screenshots.
ensureChromium();

const EMAIL = 'judge-ui@spanlog.test';
/** The connection's key: the judge endpoint gets it, the browser never does. */
const API_KEY = `sk-browser-${randomUUID()}`;
const PROMPT = 'judge/faithfulness';
/** An answer the fake judge cannot score: its reply is prose, not the asked JSON. */
const UNSURE = 'I cannot say.';

/** The runs' statuses, as their rows say them. */
const statusesOf = async (rows: Locator) => Promise.all((await rows.all()).map((r) => r.getAttribute('data-status')));

describe('LLM judge evaluators (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;
  let llm: Server;
  let baseUrl: string;
  const keysSent: string[] = [];
  /** Every RPC answer the page read, to look for the key in. */
  const answers: string[] = [];
  const shots = process.env.SPANLOG_SCREENSHOTS ?? tmpdir();

  /** A trace with one LLM span answering `output`; its span's id (a UUID) once it is readable. */
  const llmCall = async (output: string) => {
    const traceId = `judged-${randomUUID()}`;
    const seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, { batch: llmCallEvents(traceId, output) });
    await traceVisible(stack, tenant.apiKey, traceId, seq);
    const trace = await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey });
    return (trace.body.spans as { id: string }[])[0].id;
  };

  beforeAll(async () => {
    llm = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        keysSent.push(req.headers.authorization ?? '');
        const unsure = text.includes(UNSURE);
        const content = unsure ? 'Hard to tell.' : JSON.stringify({ score: 0.8, reasoning: 'faithful to the refund policy' });
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            model: 'gpt-4.1-mini',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 120, completion_tokens: 30 },
          }),
        );
      });
    });
    llm.listen(0, '127.0.0.1');
    await once(llm, 'listening');
    baseUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
    stack = await startStack();
    tenant = await bootstrap(stack, EMAIL, 'Judge UI', 'support', 'pro');
    const pushed = await send(stack, 'POST', '/api/v1/prompt-templates', {
      token: tenant.apiKey,
      body: {
        name: PROMPT,
        template: [
          { role: 'system', content: 'You judge whether an answer is faithful to the refund policy.' },
          { role: 'user', content: 'Question: {{input}}\nAnswer: {{output}}' },
        ],
      },
    });
    expect(pushed.status).toBe(201);
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    page.on('response', (r) => {
      if (r.url().includes('/api/trpc/'))
        void r.text().then(
          (body) => answers.push(body),
          () => undefined,
        );
    });
    await logInToDashboard(page, stack.baseUrl, EMAIL, PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
    await new Promise((resolve) => llm?.close(resolve));
  });

  it('creates a connection whose key the page never holds, a judge tested on a span, and shows its runs, failed ones apart', async () => {
    const tested = await llmCall('Yes, refunds are possible within 30 days.');

    // A connection: a refused base URL is named beside its field, then it is created.
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/settings/connections`);
    await page.getByRole('button', { name: 'New connection' }).click();
    const connection = page.getByRole('form', { name: 'Create an LLM connection' });
    await connection.getByLabel('Name', { exact: true }).fill('local');
    await connection.getByLabel('Base URL').fill('ftp://127.0.0.1/v1');
    await connection.getByLabel('API key').fill(API_KEY);
    await connection.getByLabel(/^Extra headers/).fill('X-Org: org-7');
    await connection.getByRole('button', { name: 'Create connection' }).click();
    await page.locator('#conn-baseUrl-msg.error').waitFor();
    expect(await page.locator('#conn-baseUrl-msg').textContent()).toMatch(/^baseUrl: must be an absolute http or https URL/);
    await connection.getByLabel('Base URL').fill(baseUrl);
    await connection.getByRole('button', { name: 'Create connection' }).click();
    const row = page.getByRole('table', { name: 'LLM connections' }).getByRole('row', { name: /local/ });
    await row.getByRole('cell', { name: 'X-Org' }).waitFor();
    await page.screenshot({ path: join(shots, 'connections.png'), fullPage: true });
    // Its edit form offers the key as an empty password field.
    await row.getByRole('button', { name: 'Edit local' }).click();
    const key = page.getByRole('form', { name: 'Edit LLM connection local' }).getByLabel('API key');
    expect(await key.getAttribute('type')).toBe('password');
    expect(await key.inputValue()).toBe('');
    expect(await page.content()).not.toContain(API_KEY);
    await page.getByRole('button', { name: 'Cancel' }).click();

    // A judge, tried on a span before it is saved.
    await page.getByRole('tab', { name: 'Evaluators' }).click();
    await page.getByRole('button', { name: 'New evaluator' }).click();
    const form = page.getByRole('form', { name: 'Create an evaluator' });
    await form.getByLabel('Name (the score name)').fill('faithfulness');
    await form.getByLabel('Kind').selectOption({ label: 'LLM judge' });
    await form.getByLabel('Connection').selectOption({ label: 'local' });
    await form.getByLabel('Model').fill('gpt-4.1-mini');
    await form.getByLabel('Prompt template').selectOption(PROMPT);
    // Categories show for a categorical score only, the quiet window for a trace target only.
    await form.getByLabel('Score type').selectOption('categorical');
    await form.getByLabel('Category 1').fill('faithful');
    await form.getByLabel('Category 2').fill('unfaithful');
    await form.getByRole('button', { name: 'Add category' }).click();
    await form.getByLabel('Category 3').fill('off topic');
    await form.getByLabel('Target').selectOption('trace');
    await form.getByLabel('Quiet seconds').fill('60');
    await page.screenshot({ path: join(shots, 'judge-form.png'), fullPage: true });
    await form.getByLabel('Score type').selectOption('numeric');
    expect(await form.getByLabel('Category 1').count()).toBe(0);
    await form.getByLabel('Target').selectOption('span');
    expect(await form.getByLabel('Quiet seconds').count()).toBe(0);

    await form.getByLabel('Span id').fill(tested);
    await form.getByRole('button', { name: 'Test', exact: true }).click();
    const result = page.getByRole('status', { name: 'Test result' });
    await result.waitFor();
    expect(await result.getAttribute('data-status')).toBe('succeeded');
    expect(await result.getByTestId('test-score').textContent()).toBe('0.80');
    expect(await result.getByTestId('test-comment').textContent()).toBe('faithful to the refund policy');
    expect(await result.textContent()).toContain('gpt-4.1-mini · 120+30 tokens');
    // The form with its result, across the page's width.
    const box = (await form.boundingBox())!;
    await page.screenshot({
      path: join(shots, 'test-result.png'),
      fullPage: true,
      clip: { x: 0, y: box.y - 8, width: 1400, height: box.height + 16 },
    });
    // A span that is not there is said so, not shown as a score.
    await form.getByLabel('Span id').fill(randomUUID());
    await form.getByRole('button', { name: 'Test', exact: true }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: /^The test could not run: span .* not found/ })
      .waitFor();
    await form.getByRole('button', { name: 'Create evaluator' }).click();
    await page
      .getByRole('table', { name: 'Evaluators' })
      .getByRole('row', { name: /faithfulness/ })
      .waitFor();

    // Two answers to judge: one scores, the other's reply is unreadable, a failed run without a score.
    await llmCall('Yes, refunds are possible within 30 days.');
    await llmCall(UNSURE);
    await page.getByRole('button', { name: 'Runs of faithfulness' }).click();
    const runs = page.getByRole('table', { name: 'Runs of faithfulness' }).locator('tbody tr');
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await statusesOf(runs)).sort();
      },
      (statuses) => statuses.join() === 'failed,succeeded',
      30_000,
    );
    const succeeded = runs.and(page.locator('[data-status="succeeded"]'));
    expect(await succeeded.getByTestId('run-score').textContent()).toBe('0.80');
    expect(await succeeded.textContent()).toContain('faithful to the refund policy');
    const failed = runs.and(page.locator('[data-status="failed"]'));
    expect(await failed.textContent()).toContain('judge reply unreadable');
    expect((await failed.getAttribute('class'))?.split(' ')).toContain('run-row-failed');
    await page.screenshot({ path: join(shots, 'runs.png'), fullPage: true });

    await page.getByLabel('Status').selectOption('failed');
    await eventually(
      () => statusesOf(runs),
      (statuses) => statuses.join() === 'failed',
    );

    // The key reached the judge endpoint alone: never the page, nor any answer it read.
    expect(keysSent.every((k) => k === `Bearer ${API_KEY}`)).toBe(true);
    expect(keysSent.length).toBeGreaterThanOrEqual(3);
    expect(await page.content()).not.toContain(API_KEY);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.includes(API_KEY))).toEqual([]);
  });
});
