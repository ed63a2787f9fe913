import { LangfuseClient } from '@langfuse/client';
import { type Tenant, bootstrap, send } from './support/api';
import { type Stack, startStack } from './support/stack';

const CHAT = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: '{{question}}' },
];

/** Langfuse's prompt fetch (`GET /api/public/v2/prompts/{name}`, issue 17 item 3) over our prompt templates. */
describe('Langfuse prompt fetch', () => {
  let stack: Stack;
  let tenant: Tenant;
  let basic: string;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'langfuse-prompts@spanlog.test', 'LangfusePrompts', 'p', 'pro');
    basic = `Basic ${Buffer.from(`pk-lf-anything:${tenant.apiKey}`).toString('base64')}`;
  }, 120_000);

  afterAll(() => stack?.stop());

  async function push(body: unknown): Promise<void> {
    expect((await send(stack, 'POST', '/api/v1/prompt-templates', { token: tenant.apiKey, body })).status).toBe(201);
  }

  const fetchPrompt = (nameAndQuery: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.baseUrl}/api/public/v2/prompts/${nameAndQuery}`, { headers: { authorization: basic, ...headers } });

  it('serves our templates to the real Langfuse SDK, configured with baseUrl and keys only', async () => {
    await push({
      name: 'support/answer',
      template: 'Answer {{question}} briefly.',
      labels: ['production'],
      config: { model: 'gpt-4o-mini' },
      commitMessage: 'first',
    });
    await push({ name: 'support/answer', template: CHAT, labels: ['staging'], config: { temperature: 0.2 } });
    const langfuse = new LangfuseClient({ baseUrl: stack.baseUrl, publicKey: 'pk-lf-anything', secretKey: tenant.apiKey });

    const production = await langfuse.prompt.get('support/answer');
    expect(production).toMatchObject({
      name: 'support/answer',
      version: 1,
      type: 'text',
      labels: ['production'],
      config: { model: 'gpt-4o-mini' },
      commitMessage: 'first',
      isFallback: false,
    });
    expect(production.compile({ question: 'What is the capital of France?' })).toBe('Answer What is the capital of France? briefly.');

    const staging = await langfuse.prompt.get('support/answer', { label: 'staging', type: 'chat' });
    expect(staging).toMatchObject({ version: 2, type: 'chat', labels: ['latest', 'staging'], config: { temperature: 0.2 } });
    expect(staging.compile({ question: 'Why?' })).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Why?' },
    ]);

    expect(await langfuse.prompt.get('support/answer', { version: 2, type: 'chat' })).toMatchObject({ version: 2, type: 'chat' });
    await expect(langfuse.prompt.get('support/answer', { label: 'canary' })).rejects.toMatchObject({
      statusCode: 404,
      body: { error: 'LangfuseNotFoundError' },
    });
  });

  it("answers Langfuse's prompt shape with our ETag and 304, counted in the key's rate-limit bucket", async () => {
    await push({ name: 'greeting', template: 'Hello {{name}}', labels: ['production'] });
    const first = await fetchPrompt('greeting');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({
      name: 'greeting',
      version: 1,
      type: 'text',
      prompt: 'Hello {{name}}',
      config: {},
      labels: ['latest', 'production'],
      tags: [],
      commitMessage: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    expect(first.headers.get('ratelimit-limit')).toBe('1000');

    const unchanged = await fetchPrompt('greeting', { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);

    await push({ name: 'greeting', template: 'Hi {{name}}' });
    const moved = await fetchPrompt('greeting', { 'if-none-match': etag });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ version: 1, labels: ['production'] });
  });

  it("answers 404 in Langfuse's shape where no version has the label, 400 naming the fault, 401 without a valid key", async () => {
    await push({ name: 'draft', template: 'unlabelled' });
    const missing = await fetchPrompt('draft');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: "Prompt not found: 'draft' with label 'production'", error: 'LangfuseNotFoundError' });
    expect(await (await fetchPrompt('draft?label=latest')).json()).toMatchObject({ version: 1, prompt: 'unlabelled' });
    expect(await (await fetchPrompt('draft?version=9')).json()).toEqual({
      message: "Prompt not found: 'draft' with version 9",
      error: 'LangfuseNotFoundError',
    });
    expect(await (await fetchPrompt('nothing-here')).json()).toMatchObject({ error: 'LangfuseNotFoundError' });

    const both = await fetchPrompt('draft?version=1&label=production');
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('version, label') } });
    const badVersion = await fetchPrompt('draft?version=first');
    expect(badVersion.status).toBe(400);
    expect(await badVersion.json()).toMatchObject({ error: { message: expect.stringContaining('version:') } });

    expect((await send(stack, 'GET', '/api/public/v2/prompts/draft')).status).toBe(401);
    const wrongKey = `Basic ${Buffer.from('pk-lf-anything:sl_not_a_key').toString('base64')}`;
    expect((await send(stack, 'GET', '/api/public/v2/prompts/draft', { headers: { authorization: wrongKey } })).status).toBe(401);
  });
});
