import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerOtlpCommands } from './otlp.command';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const attrs = (values: Record<string, string>) => Object.entries(values).map(([key, value]) => ({ key, value: { stringValue: value } }));
const span = (n: number, name: string, attributes: Record<string, string>) => ({
  traceId: TRACE, spanId: `b7ad6b71692033${String(n).padStart(2, '0')}`, name, startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000100000000', attributes: attrs(attributes),
});

/** A tool call as each mapped convention sends it: its operation, and its arguments and result under that convention's keys. */
const TOOL_CALLS: { convention: string; attributes: Record<string, string>; from: { operation: string; input: string; output: string } }[] = [
  {
    convention: 'OTel GenAI',
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'weather', 'gen_ai.tool.call.arguments': '{"city":"Paris"}', 'gen_ai.tool.call.result': '{"temp":18}' },
    from: { operation: 'gen_ai.operation.name', input: 'gen_ai.tool.call.arguments', output: 'gen_ai.tool.call.result' },
  },
  {
    convention: 'OpenInference',
    attributes: { 'openinference.span.kind': 'TOOL', 'input.value': '{"city":"Paris"}', 'output.value': '{"temp":18}' },
    from: { operation: 'openinference.span.kind', input: 'input.value', output: 'output.value' },
  },
  {
    convention: 'OpenLLMetry',
    attributes: { 'traceloop.span.kind': 'tool', 'traceloop.entity.input': '{"city":"Paris"}', 'traceloop.entity.output': '{"temp":18}' },
    from: { operation: 'traceloop.span.kind', input: 'traceloop.entity.input', output: 'traceloop.entity.output' },
  },
  {
    convention: 'Vercel AI SDK',
    attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.args': '{"city":"Paris"}', 'ai.toolCall.result': '{"temp":18}' },
    from: { operation: 'ai.operationId', input: 'ai.toolCall.args', output: 'ai.toolCall.result' },
  },
  {
    convention: 'Langfuse',
    attributes: { 'langfuse.observation.type': 'tool', 'langfuse.observation.input': '{"city":"Paris"}', 'langfuse.observation.output': '{"temp":18}' },
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
  it.each(TOOL_CALLS)('shows a $convention tool span’s operation, and its arguments and result as input and output with the keys they came from', async ({ convention, attributes, from }) => {
    const text = await explained({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, 'get_weather', attributes)] }] }] });
    const lines = text.split('\n').map((line) => line.trim());
    expect(lines).toContain(`operation = "execute_tool"  ← ${from.operation} [${convention}]`);
    expect(lines).toContain(`input = {"city":"Paris"}  ← ${from.input} [${convention}]`);
    expect(lines).toContain(`output = {"temp":18}  ← ${from.output} [${convention}]`);
  });
});
