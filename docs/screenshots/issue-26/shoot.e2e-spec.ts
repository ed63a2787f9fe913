import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrap, eventually } from './support/api';
import { type Headless, launchChromium } from './support/browser';
import { type Stack, startStack } from './support/stack';

// Not part of the suite: how docs/screenshots/issue-26 were taken. Copy this file into test/ of a
// built checkout (4dcff33 for "before", the issue 26 branch for "after") and run
//   SHOTS_DIR=/tmp/shots SHOTS_PREFIX=before|after [SHOTS_WIDTH=1280] npx jest test/shoot.e2e-spec.ts --selectProjects e2e
// It starts its own stack (database, streams, ports), sends the same three OTel GenAI agent turns
// in one session, and shoots the trace page (root, tool span, chat span), the overview, and the
// session page (before: the trace list filtered by the session, as no session page existed).
const OUT = process.env.SHOTS_DIR as string;
const PREFIX = process.env.SHOTS_PREFIX as string;
const SESSION = 'sess-weather-demo';

const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });

/** One agent turn in the OTel GenAI conventions: the agent, its chat call asking for a tool, the tool call, and a second chat call answering. */
function agentTurn(at: number, question: string, city: string, temp: number, answer: string) {
  const traceId = hex(32);
  const [root, chat1, tool, chat2] = [hex(16), hex(16), hex(16), hex(16)];
  const ns = (ms: number) => `${at + ms}000000`;
  const common = [str('session.id', SESSION), str('user.id', 'user-42')];
  const span = (spanId: string, parentSpanId: string, name: string, from: number, to: number, attributes: unknown[]) => ({
    traceId, spanId, parentSpanId, name, kind: 1, startTimeUnixNano: ns(from), endTimeUnixNano: ns(to), attributes: [...common, ...attributes],
  });
  const userTurn = JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: 'You answer weather questions. Use get_weather.' }] }, { role: 'user', parts: [{ type: 'text', content: question }] }]);
  const toolCall = { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city } };
  const spans = [
    span(root, '', 'invoke_agent weather_agent', 0, 2400, [str('gen_ai.operation.name', 'invoke_agent'), str('gen_ai.agent.name', 'weather_agent'), str('gen_ai.prompt', question), str('gen_ai.completion', answer)]),
    span(chat1, root, 'chat gpt-4o-mini', 30, 930, [
      str('gen_ai.operation.name', 'chat'), str('gen_ai.system', 'openai'), str('gen_ai.request.model', 'gpt-4o-mini'), str('gen_ai.response.model', 'gpt-4o-mini'),
      int('gen_ai.usage.input_tokens', 182), int('gen_ai.usage.output_tokens', 21),
      str('gen_ai.input.messages', userTurn),
      str('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [toolCall], finish_reason: 'tool_calls' }])),
    ]),
    span(tool, root, 'execute_tool get_weather', 950, 1250, [
      str('gen_ai.operation.name', 'execute_tool'), str('gen_ai.tool.name', 'get_weather'), str('gen_ai.tool.call.id', 'call_1'),
      str('gen_ai.tool.call.arguments', JSON.stringify({ city })), str('gen_ai.tool.call.result', JSON.stringify({ city, tempC: temp, sky: 'sunny' })),
    ]),
    span(chat2, root, 'chat gpt-4o-mini', 1270, 2380, [
      str('gen_ai.operation.name', 'chat'), str('gen_ai.system', 'openai'), str('gen_ai.request.model', 'gpt-4o-mini'), str('gen_ai.response.model', 'gpt-4o-mini'),
      int('gen_ai.usage.input_tokens', 236), int('gen_ai.usage.output_tokens', 18),
      str('gen_ai.input.messages', JSON.stringify([...JSON.parse(userTurn), { role: 'assistant', parts: [toolCall] }, { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: { city, tempC: temp, sky: 'sunny' } }] }])),
      str('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }])),
    ]),
  ];
  return { traceId, body: { resourceSpans: [{ resource: { attributes: [str('service.name', 'weather-bot')] }, scopeSpans: [{ scope: { name: 'demo' }, spans }] }] } };
}

describe('issue 26 screenshots', () => {
  let stack: Stack;
  let chromium: Headless;

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    chromium = await launchChromium();
    stack = await startStack();
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.stop();
  });

  it('takes them', async () => {
    const tenant = await bootstrap(stack, 'shots@spanlog.test', 'Weather Co', 'weather bot', 'growth');
    const now = Date.now() - 20 * 60_000;
    const turns = [
      agentTurn(now, 'What is the weather in Paris?', 'Paris', 18, 'It is sunny in Paris, 18 °C.'),
      agentTurn(now + 4 * 60_000, 'And in Berlin?', 'Berlin', 12, 'Berlin is sunny too, 12 °C.'),
      agentTurn(now + 8 * 60_000, 'Which one is warmer?', 'Paris', 18, 'Paris is warmer: 18 °C against 12 °C in Berlin.'),
    ];
    for (const t of turns) {
      const res = await fetch(`${stack.baseUrl}/api/v1/otel/traces`, { method: 'POST', headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(t.body) });
      expect(res.status).toBe(200);
    }
    const list = await eventually(
      async () => (await (await fetch(`${stack.baseUrl}/api/v1/traces?sessionId=${SESSION}`, { headers: { authorization: `Bearer ${tenant.apiKey}` } })).json()) as any,
      (b: any) => b.data?.length === 3 && b.data.every((t: any) => t.spanCount === 4),
      60_000,
    );
    await eventually(async () => (await stack.db.query('SELECT count(*)::int AS n FROM stats_5m_dirty')).rows[0].n, (n) => n === 0, 60_000);
    await eventually(async () => (await stack.db.query('SELECT count(*)::int AS n FROM span_stats_5m')).rows[0].n, (n) => n > 0, 60_000);
    const first = list.data[list.data.length - 1];

    const page = await chromium.context.newPage();
    await page.setViewportSize({ width: Number(process.env.SHOTS_WIDTH ?? 1280), height: 800 });
    await page.goto(`${stack.baseUrl}/login`);
    await page.getByLabel('E-mail').fill('shots@spanlog.test');
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/login'));
    const p = `${stack.baseUrl}/p/${tenant.projectId}`;
    const shot = async (name: string, fullPage = false) => {
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(1500);
      await page.screenshot({ path: join(OUT, `${PREFIX}-${name}.png`), fullPage });
    };

    await page.goto(`${p}/traces/${first.id}`);
    await page.getByText('execute_tool get_weather').first().waitFor();
    await shot('trace');
    await page.getByText('execute_tool get_weather').first().click();
    await shot('trace-tool');
    await page.getByText('chat gpt-4o-mini').last().click();
    await shot('trace-chat');
    await page.goto(`${p}/overview`);
    await page.getByTestId('kpi-traces').waitFor();
    await shot('overview', true);
    if (PREFIX === 'after') await page.goto(`${p}/sessions/${SESSION}`);
    else await page.goto(`${p}/traces?sessionId=${SESSION}`);
    if (PREFIX === 'after') await page.getByText(/sunny|Paris/).first().waitFor();
    else await page.locator('[role="row"]').nth(1).waitFor();
    await shot('session');
  }, 300_000);
});
