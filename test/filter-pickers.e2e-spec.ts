import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap, data, eventually, login, query } from './support/api';
import { NATIVE_TRACES, write } from './support/ingest';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { type Stack, startStack } from './support/stack';

// Issue 26, "Filters that help": the trace list's filters pick from the project's known values,
// searched in any case as the user types, keyboard first, at 1024 px; every filter is in the URL.

ensureChromium();

describe('trace list filter pickers (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;
  const run = randomUUID().slice(0, 8);
  const wanted = `pick-${run}`;
  const at = new Date(Date.now() - 60_000).toISOString();

  beforeAll(async () => {
    chromium = await launchChromium();
    stack = await startStack();
    tenant = await bootstrap(stack, 'pickers@spanlog.test', 'Pickers Org', 'pickers');
    const batch = [
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: at,
        body: { id: wanted, name: 'Chat Turn', userId: 'Alice', sessionId: 'sess-1', environment: 'staging', tags: ['Beta', 'prod'] },
      },
      {
        id: randomUUID(),
        type: 'generation-create',
        timestamp: at,
        body: { id: `${wanted}-g`, traceId: wanted, name: 'answer', model: 'GPT-4o-Mini', startTime: at, endTime: at },
      },
      // Same user, session and tags, but a tool call only: the type and model filters leave it out.
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: at,
        body: {
          id: `tool-${run}`,
          name: 'Chat Turn',
          userId: 'Alice',
          sessionId: 'sess-1',
          environment: 'staging',
          tags: ['Beta', 'prod'],
        },
      },
      {
        id: randomUUID(),
        type: 'span-create',
        timestamp: at,
        body: { id: `tool-${run}-s`, traceId: `tool-${run}`, name: 'search', startTime: at, endTime: at },
      },
    ];
    expect((await write(stack, tenant.apiKey, NATIVE_TRACES, { batch })).status).toBe(201);
    // The span pickers read the 5-minute stats, recounted a few seconds after the write.
    const session = await login(stack, 'pickers@spanlog.test');
    await eventually(
      async () => data(await query(stack, session.access_token, 'trace.filterValues', { projectId: tenant.projectId, field: 'model' })),
      (v: any) => v.data.length === 1,
      30_000,
    );
    page = await chromium.context.newPage();
    await page.setViewportSize({ width: 1024, height: 768 });
    await logInToDashboard(page, stack.baseUrl, 'pickers@spanlog.test', PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  /** Types into a picker, waits for `option` among its values and picks it with the keyboard. */
  const pick = async (label: string, typed: string, option: string) => {
    const box = combobox(label);
    await box.fill(typed);
    const listbox = await listOf(label);
    await listbox.getByRole('option', { name: option, exact: true }).waitFor();
    const options = await listbox.getByRole('option').allTextContents();
    for (let i = 0; i <= options.indexOf(option); i++) await box.press('ArrowDown');
    await box.press('Enter');
    return box;
  };

  const combobox = (label: string) => page.getByRole('combobox', { name: label, exact: true });
  /** A picker's list (the one its field controls), found whether it is open or not. */
  const listOf = async (label: string) => page.locator(`[id="${await combobox(label).getAttribute('aria-controls')}"]`);
  const shownIds = async () => Promise.all((await page.locator('[data-trace-id]').all()).map((row) => row.getAttribute('data-trace-id')));

  it('offers known values for a lower-case part, filters the list, keeps every filter in the URL and across a reload', async () => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces`);
    await eventually(shownIds, (ids) => ids.length === 2);

    expect(await (await pick('Span type', 'llm', 'LLM')).inputValue()).toBe('LLM');
    expect(await (await pick('Operation', 'CHA', 'chat')).inputValue()).toBe('chat');
    expect(await (await pick('Model', '4o-mi', 'GPT-4o-Mini')).inputValue()).toBe('GPT-4o-Mini');
    await page.getByRole('combobox', { name: 'Name', exact: true }).fill('chat turn');
    await pick('User', 'ali', 'Alice');
    await pick('Session', 'SESS', 'sess-1');
    await pick('Environment', 'stag', 'staging');
    expect(await (await pick('Tags (all of, comma-separated)', 'be', 'Beta')).inputValue()).toBe('Beta');
    expect(await (await listOf('Tags (all of, comma-separated)')).isVisible()).toBe(false); // closed once picked
    await page.getByRole('button', { name: 'Apply filters' }).click();

    const expected = {
      spanType: 'LLM',
      operation: 'chat',
      model: 'GPT-4o-Mini',
      name: 'chat turn',
      userId: 'Alice',
      sessionId: 'sess-1',
      environment: 'staging',
      tags: 'Beta',
    };
    await page.waitForURL((url) => url.searchParams.get('model') === 'GPT-4o-Mini');
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual(expected);
    const ids = await eventually(shownIds, (shown) => shown.length === 1);
    const res = await query(stack, (await login(stack, 'pickers@spanlog.test')).access_token, 'trace.list', {
      projectId: tenant.projectId,
      ...expected,
      tags: ['Beta'],
    });
    expect(ids).toEqual(data(res).data.map((t: any) => t.id));
    expect(data(res).data[0].externalId).toBe(wanted);

    await page.reload();
    expect(await eventually(shownIds, (shown) => shown.length === 1)).toEqual(ids);
    for (const [label, value] of [
      ['Span type', 'LLM'],
      ['Operation', 'chat'],
      ['Model', 'GPT-4o-Mini'],
      ['Name', 'chat turn'],
      ['User', 'Alice'],
      ['Session', 'sess-1'],
      ['Environment', 'staging'],
      ['Tags (all of, comma-separated)', 'Beta'],
    ]) {
      expect(await page.getByRole('combobox', { name: label, exact: true }).inputValue()).toBe(value);
    }
  });

  it('keeps the pickers inside the page at 1024 px', async () => {
    const box = page.getByRole('combobox', { name: 'Model', exact: true });
    await box.fill('gpt');
    const listbox = await listOf('Model');
    await listbox.getByRole('option', { name: 'GPT-4o-Mini' }).waitFor();
    const list = await listbox.boundingBox();
    expect(list).not.toBeNull();
    expect((list?.x ?? 0) + (list?.width ?? 0)).toBeLessThanOrEqual(1024);
    await box.press('Escape');
    expect(await listbox.isVisible()).toBe(false);
  });
});
