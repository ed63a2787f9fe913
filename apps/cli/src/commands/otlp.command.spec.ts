import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerOtlpCommands } from './otlp.command';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const attrs = (values: Record<string, string>) => Object.entries(values).map(([key, value]) => ({ key, value: { stringValue: value } }));
const span = (n: number, name: string, attributes: Record<string, string>) => ({
  traceId: TRACE,
  spanId: `b7ad6b71692033${String(n).padStart(2, '0')}`,
  name,
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000100000000',
  attributes: attrs(attributes),
});

/**
 * A tool call as each mapped convention sends it: under `from.operation` that convention's word
 * for a tool call (`kind`), its arguments and result under `from.input` and `from.output`, and
 * any attribute it `also` sends.
 */
const TOOL_CALLS: {
  convention: string;
  kind: string;
  from: { operation: string; input: string; output: string };
  also?: Record<string, string>;
}[] = [
  {
    convention: 'OTel GenAI',
    kind: 'execute_tool',
    from: { operation: 'gen_ai.operation.name', input: 'gen_ai.tool.call.arguments', output: 'gen_ai.tool.call.result' },
    also: { 'gen_ai.tool.name': 'weather' },
  },
  {
    convention: 'OpenInference',
    kind: 'TOOL',
    from: { operation: 'openinference.span.kind', input: 'input.value', output: 'output.value' },
  },
  {
    convention: 'OpenLLMetry',
    kind: 'tool',
    from: { operation: 'traceloop.span.kind', input: 'traceloop.entity.input', output: 'traceloop.entity.output' },
  },
  {
    convention: 'Vercel AI SDK',
    kind: 'ai.toolCall',
    from: { operation: 'ai.operationId', input: 'ai.toolCall.args', output: 'ai.toolCall.result' },
  },
  {
    convention: 'Langfuse',
    kind: 'tool',
    from: { operation: 'langfuse.observation.type', input: 'langfuse.observation.input', output: 'langfuse.observation.output' },
  },
];

/** What `spanlog otlp explain FILE` prints for the export, through the real command. */
async function explained(body: unknown): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'spanlog-explain-')), 'export.json');
  writeFileSync(file, JSON.stringify(body));
  const program = new Command().exitOverride();
  registerOtlpCommands(program);
  let out = '';
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['otlp', 'explain', file], { from: 'user' });
  } finally {
    write.mockRestore();
  }
  return out;
}

describe('spanlog otlp explain', () => {
  it.each(TOOL_CALLS)(
    'shows a $convention tool span’s operation, and its arguments and result as input and output with the keys they came from',
    async ({ convention, kind, from, also }) => {
      const attributes = { [from.operation]: kind, ...also, [from.input]: '{"city":"Paris"}', [from.output]: '{"temp":18}' };
      const text = await explained({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, 'get_weather', attributes)] }] }] });
      const lines = text.split('\n').map((line) => line.trim());
      expect(lines).toContain(`operation = "execute_tool"  ← ${from.operation} [${convention}]`);
      expect(lines).toContain(`input = {"city":"Paris"}  ← ${from.input} [${convention}]`);
      expect(lines).toContain(`output = {"temp":18}  ← ${from.output} [${convention}]`);
    },
  );
});

describe('spanlog otlp explain: usage by type (issue 28)', () => {
  it('shows the usage split by type, each token in one type, with the keys it came from', async () => {
    const usage = { 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 300, 'gen_ai.usage.cache_read.input_tokens': 400 };
    const attributes = [
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
      ...Object.entries(usage).map(([key, n]) => ({ key, value: { intValue: String(n) } })),
    ];
    const text = await explained({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...span(1, 'chat gpt-4o', {}), attributes }] }] }] });
    const lines = text.split('\n').map((line) => line.trim());
    expect(lines).toContain(
      'usageDetails = {"cached_input":400,"input":600,"output":300}  ← gen_ai.usage.input_tokens, gen_ai.usage.output_tokens, gen_ai.usage.cache_read.input_tokens [OTel GenAI]',
    );
    expect(lines).toContain('promptTokens = 1000  ← gen_ai.usage.input_tokens [SPEC 2.2]');
  });
});
