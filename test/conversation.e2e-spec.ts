import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';
import type { Page } from 'playwright-core';
import { PASSWORD, type Tenant, bootstrap } from './support/api';
import { NATIVE_TRACES, OTLP_TRACES, write, traceVisible } from './support/ingest';
import { type Headless, ensureChromium, launchChromium, logInToDashboard } from './support/browser';
import { type Stack, startStack } from './support/stack';

// Issue 26, "Messages as a conversation": an LLM span's messages as chat turns with tool-call
// cards, for the payloads of OpenAI chat and Anthropic (native ingestion, as the Langfuse SDKs
// send them) and of the OTel GenAI conventions (OTLP). SPANLOG_SCREENSHOTS=<dir> saves each page.

ensureChromium();

const now = () => new Date().toISOString();
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A trace whose only span is one generation with this input and output (the span the page opens on). */
function nativeGeneration(id: string, name: string, model: string, input: unknown, output: unknown) {
  const at = now();
  return {
    batch: [
      { id: `${id}-e1`, type: 'trace-create', timestamp: at, body: { id, name } },
      {
        id: `${id}-e2`,
        type: 'generation-create',
        timestamp: at,
        body: { id: `${id}-gen`, traceId: id, name: `chat ${model}`, startTime: at, endTime: at, model, input, output },
      },
    ],
  };
}

const OPENAI_INPUT = [
  { role: 'system', content: 'You track parcels.\n  Answer in one line.' },
  { role: 'user', content: 'Where is parcel 42?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_parcel', type: 'function', function: { name: 'track_parcel', arguments: '{"parcel":42}' } }],
  },
  { role: 'tool', tool_call_id: 'call_parcel', content: '{"status":"in transit","eta":"tomorrow"}' },
];
const OPENAI_OUTPUT = { role: 'assistant', content: 'Parcel 42 is in transit and arrives tomorrow.', refusal: null };

const ANTHROPIC_INPUT = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  system: 'You are a weather bot.',
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris? <img src="/x" onerror="alert(1)">' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '18 °C, sunny' }] },
  ],
};
const ANTHROPIC_OUTPUT = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: 'It is 18 °C and sunny in Paris.' }],
  stop_reason: 'end_turn',
};

const GEN_AI_INPUT = [
  { role: 'system', parts: [{ type: 'text', content: 'You answer from the docs.' }] },
  { role: 'user', parts: [{ type: 'text', content: 'How do I name a chat span?' }] },
  {
    role: 'assistant',
    parts: [{ type: 'tool_call', id: 'call_docs', name: 'search_docs', arguments: { query: 'gen_ai span name' } }],
    finish_reason: 'tool_call',
  },
  {
    role: 'tool',
    parts: [{ type: 'tool_call_response', id: 'call_docs', response: 'Span name: {gen_ai.operation.name} {gen_ai.request.model}' }],
  },
];
const GEN_AI_OUTPUT = [
  { role: 'assistant', parts: [{ type: 'text', content: 'Name it "chat gpt-4o": the operation, then the model.' }], finish_reason: 'stop' },
];

describe('conversation view (browser)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let chromium: Headless;
  let page: Page;
  const openAiId = `conv-openai-${Date.now()}`;
  const anthropicId = `conv-anthropic-${Date.now()}`;
  const genAiTraceHex = hex(16);

  const screenshot = async (name: string) => {
    const dir = process.env.SPANLOG_SCREENSHOTS;
    if (dir) await page.screenshot({ path: resolve(dir, `${name}.png`), fullPage: true });
  };
  const openTrace = async (id: string) => {
    await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces/${id}`);
    await page.getByRole('region', { name: 'Input', exact: true }).waitFor();
  };
  // The span's panel: the trace's own input and output may read as a conversation too, with a toggle of its own.
  const spanDetails = () => page.locator('section.span-details');
  const rolesOf = (region: string) => page.getByRole('region', { name: region, exact: true }).locator('.turn-role').allTextContents();
  const toolCard = (name: string) =>
    page.getByRole('region', { name: 'Input', exact: true }).getByRole('region', { name: `Tool call ${name}` });

  beforeAll(async () => {
    chromium = await launchChromium();
    stack = await startStack();
    tenant = await bootstrap(stack, 'conversation@spanlog.test', 'Conversation Org', 'agents');
    const openAi = await write(
      stack,
      tenant.apiKey,
      NATIVE_TRACES,
      nativeGeneration(openAiId, 'parcel question', 'gpt-4o-mini', OPENAI_INPUT, OPENAI_OUTPUT),
    );
    const anthropic = await write(
      stack,
      tenant.apiKey,
      NATIVE_TRACES,
      nativeGeneration(anthropicId, 'weather question', 'claude-sonnet-4-5', ANTHROPIC_INPUT, ANTHROPIC_OUTPUT),
    );
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const genAi = await write(
      stack,
      tenant.apiKey,
      OTLP_TRACES,
      exportOf([
        span({
          traceId: genAiTraceHex,
          spanId: hex(8),
          parentSpanId: '',
          name: 'chat gpt-4o',
          startTimeUnixNano: String(startNs),
          endTimeUnixNano: String(startNs + 800_000_000n),
          attributes: attrs({
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o',
            'gen_ai.input.messages': JSON.stringify(GEN_AI_INPUT),
            'gen_ai.output.messages': JSON.stringify(GEN_AI_OUTPUT),
          }),
        }),
      ]),
    );
    expect([openAi.status, anthropic.status, genAi.status]).toEqual([201, 201, 200]);
    await traceVisible(stack, tenant.apiKey, openAiId, openAi.seq);
    await traceVisible(stack, tenant.apiKey, anthropicId, anthropic.seq);
    await traceVisible(stack, tenant.apiKey, genAiTraceHex, genAi.seq);
    page = await chromium.context.newPage();
    await logInToDashboard(page, stack.baseUrl, 'conversation@spanlog.test', PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  it('OpenAI chat: each message a turn with its role, whitespace kept, the tool call a card with its arguments and result', async () => {
    await openTrace(openAiId);
    expect(await rolesOf('Input')).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(await rolesOf('Output')).toEqual(['assistant']);
    const system = page.getByRole('region', { name: 'Input', exact: true }).locator('.turn-text').first();
    expect(await system.textContent()).toBe('You track parcels.\n  Answer in one line.');
    // The root config has no DOM types: the element is reached through its own window.
    expect(
      await system.evaluate(
        (el: { ownerDocument: { defaultView: { getComputedStyle(e: unknown): { whiteSpace: string } } } }) =>
          el.ownerDocument.defaultView.getComputedStyle(el).whiteSpace,
      ),
    ).toBe('pre-wrap');
    const card = toolCard('track_parcel');
    expect(await card.textContent()).toContain('call_parcel');
    expect(await card.locator('pre').allTextContents()).toEqual([
      '{\n  "parcel": 42\n}',
      '{\n  "status": "in transit",\n  "eta": "tomorrow"\n}',
    ]);
    expect(await page.getByRole('region', { name: 'Output', exact: true }).textContent()).toContain(
      'Parcel 42 is in transit and arrives tomorrow.',
    );
    expect(await spanDetails().getByRole('group', { name: 'Input and output view', exact: true }).textContent()).toContain(
      'OpenAI chat messages',
    );
    await screenshot('trace-conversation-openai');
  });

  it('the JSON toggle shows the messages as sent, and toggles back', async () => {
    await spanDetails().getByRole('button', { name: 'JSON', exact: true }).click();
    const raw = (await page.getByRole('region', { name: 'Input', exact: true }).textContent()) ?? '';
    expect(raw).toContain('"tool_calls": [');
    expect(JSON.parse(raw)).toEqual(OPENAI_INPUT);
    expect(await spanDetails().getByRole('button', { name: 'JSON', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await screenshot('trace-conversation-json');
    await spanDetails().getByRole('button', { name: 'Conversation', exact: true }).click();
    expect(await rolesOf('Input')).toEqual(['system', 'user', 'assistant', 'tool']);
  });

  it('Anthropic: the system prompt first, content blocks as text, tool_use as a card holding its tool_result', async () => {
    await openTrace(anthropicId);
    expect(await rolesOf('Input')).toEqual(['system', 'user', 'assistant', 'user']);
    const card = toolCard('get_weather');
    expect(await card.locator('pre').allTextContents()).toEqual(['{\n  "city": "Paris"\n}', '18 °C, sunny']);
    expect(await page.getByRole('region', { name: 'Input', exact: true }).textContent()).toContain('Let me check.');
    // Message text is text: markup in it is shown, never made into elements.
    expect(await page.getByRole('region', { name: 'Input', exact: true }).textContent()).toContain(
      'Weather in Paris? <img src="/x" onerror="alert(1)">',
    );
    expect(await page.locator('.span-details img').count()).toBe(0);
    // The request's other fields stay one click away.
    const extra = page.getByRole('region', { name: 'Input', exact: true }).locator('details.conversation-extra');
    expect(await extra.locator('summary').textContent()).toBe('Other fields: model, max_tokens');
    await extra.locator('summary').click();
    expect(JSON.parse((await extra.locator('pre').textContent()) ?? '')).toEqual({ model: 'claude-sonnet-4-5', max_tokens: 1024 });
    expect(await page.getByRole('region', { name: 'Output', exact: true }).textContent()).toContain('It is 18 °C and sunny in Paris.');
    expect(await spanDetails().getByRole('group', { name: 'Input and output view', exact: true }).textContent()).toContain(
      'Anthropic messages',
    );
    await screenshot('trace-conversation-anthropic');
  });

  it('OTel GenAI parts over OTLP: roles, the tool_call part as a card with its tool_call_response', async () => {
    await openTrace(genAiTraceHex);
    expect(await rolesOf('Input')).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(await rolesOf('Output')).toEqual(['assistant']);
    const card = toolCard('search_docs');
    expect(await card.locator('pre').allTextContents()).toEqual([
      '{\n  "query": "gen_ai span name"\n}',
      'Span name: {gen_ai.operation.name} {gen_ai.request.model}',
    ]);
    expect(await spanDetails().getByRole('group', { name: 'Input and output view', exact: true }).textContent()).toContain(
      'OpenTelemetry GenAI messages',
    );
    await page.setViewportSize({ width: 1024, height: 768 });
    await screenshot('trace-conversation-genai-1024');
    // Usable at 1024 px: the card fits its panel, no sideways scrolling.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await spanDetails().getByRole('button', { name: 'JSON', exact: true }).click();
    expect(JSON.parse((await page.getByRole('region', { name: 'Output', exact: true }).textContent()) ?? '')).toEqual(GEN_AI_OUTPUT);
  });
});
