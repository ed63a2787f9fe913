import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { foldFacts } from '@app/domain';
import { otlpToFacts, validateOtlpRequest } from '@app/otlp';
import { ENVELOPE, attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { ROW_COLUMNS, prepareTelemetry } from './telemetry-writer';

const FIXTURES = resolve(__dirname, '../../../../../../shared/fixtures/otlp');
const CAPTURED = resolve(__dirname, '../../../../otlp/src/testing/captured');

/** Text of `length` characters that opens like JSON and does not close like it, as the bench's prompts do. */
const prose = (seed: string, length: number): string =>
  `${seed} ${'the agent called a tool to look up order status '.repeat(8)}`.slice(0, length);

/** One trace shaped as the bench's (bench/payloads.ts): an agent root, a model call, a tool call. */
function benchShapedExport(): unknown {
  const traceId = '0000000a01c0ffee0123456789abcdef';
  const at = (ms: number) => String(1_763_000_000_000_000_000n + BigInt(ms) * 1_000_000n);
  const spans = [
    span({
      traceId,
      spanId: '0000000000000a00',
      parentSpanId: undefined,
      name: 'invoke_agent support-agent',
      kind: 2,
      startTimeUnixNano: at(0),
      endTimeUnixNano: at(4_000),
      attributes: attrs({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': 'conv-0000000a01c0',
        'user.id': 'user-0',
        'session.id': 'session-0',
        'deployment.environment.name': 'production',
        'input.value': prose('Where is my order #4411?', 240),
        'output.value': prose('Your order shipped this morning.', 180),
      }),
    }),
    span({
      traceId,
      spanId: '0000000000000a01',
      parentSpanId: '0000000000000a00',
      name: 'chat gpt-4o-mini',
      kind: 3,
      startTimeUnixNano: at(400),
      endTimeUnixNano: at(750),
      attributes: attrs({
        'gen_ai.operation.name': 'chat',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
        'gen_ai.request.temperature': 0.2,
        'gen_ai.request.max_tokens': 1024,
        'gen_ai.usage.input_tokens': 813,
        'gen_ai.usage.output_tokens': 97,
        'gen_ai.prompt': prose('[{"role":"user","content":"step 1: what is the status of order 4411?', 170),
        'gen_ai.completion': prose('[{"role":"assistant","content":"step 1: calling lookup_order', 120),
      }),
    }),
    span({
      traceId,
      spanId: '0000000000000a02',
      parentSpanId: '0000000000000a00',
      name: 'execute_tool lookup_order',
      kind: 1,
      startTimeUnixNano: at(800),
      endTimeUnixNano: at(1_150),
      attributes: attrs({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup_order',
        'tool.name': 'lookup_order',
        'input.value': prose('{"order_id":"4411","fields":["status","carrier","eta"],"step":2', 160),
        'output.value': '{"status":"shipped","carrier":"UPS","eta":"2025-11-20","items":3}',
      }),
    }),
  ];
  const resource = attrs({ 'service.name': 'support-bot', 'service.version': '2.4.1', 'telemetry.sdk.language': 'python' });
  return exportOf(spans, { resource, scope: { name: 'opentelemetry.instrumentation.openai_agents', version: '0.1.0' } });
}

/** Every OTLP trace export the tests hold, by name: the shared fixtures, the captured exports' trace requests, a bench-shaped one. */
export function otlpExports(): Record<string, unknown> {
  const exports: Record<string, unknown> = { 'bench-shaped': benchShapedExport() };
  for (const name of readdirSync(FIXTURES)
    .filter((n) => n.endsWith('.json') && !n.endsWith('.expected.json'))
    .sort()) {
    exports[`fixtures/${name}`] = JSON.parse(readFileSync(resolve(FIXTURES, name), 'utf8'));
  }
  for (const name of readdirSync(CAPTURED)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const { requests } = JSON.parse(readFileSync(resolve(CAPTURED, name), 'utf8')) as { requests: { path: string; body: unknown }[] };
    requests.forEach((request, i) => {
      if (request.path.endsWith('/v1/traces')) exports[`captured/${name}#${i}`] = request.body;
    });
  }
  return exports;
}

type StoredRows = { traces: string | null; spans: string | null; scores: string | null };

/**
 * A table's row parameter as JSON text of one object per row, column to value, unset (null)
 * columns left out: the values each row stores, whatever the parameter's encoding (an object
 * per row before issue 25's positional arrays, which the golden file was written with).
 */
function rowsByColumn(table: keyof StoredRows, text: string | null): string | null {
  if (text === null) return null;
  const rows = JSON.parse(text) as unknown[][];
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(ROW_COLUMNS[table].map((c, i) => [c.column, row[i]]).filter(([, v]) => v !== null))),
  );
}

/** What the processor stores of an export: its folded facts, as text, and the upserts' rows (`rowsByColumn`). */
export async function storedFormOf(body: unknown): Promise<{ facts: string; rows: StoredRows }> {
  validateOtlpRequest(body);
  const folded = foldFacts([otlpToFacts(body as Parameters<typeof otlpToFacts>[0], ENVELOPE)]);
  const { rows } = await prepareTelemetry(folded);
  return {
    facts: JSON.stringify(folded),
    rows: {
      traces: rowsByColumn('traces', rows.traces),
      spans: rowsByColumn('spans', rows.spans),
      scores: rowsByColumn('scores', rows.scores),
    },
  };
}

/** Rows as `rowsByColumn` writes them, parsed, with null values left out (a missing column and a null one store the same). */
export function comparableRows(rows: StoredRows): Record<keyof StoredRows, Record<string, unknown>[] | null> {
  const parsed = (text: string | null) =>
    text === null
      ? null
      : (JSON.parse(text) as Record<string, unknown>[]).map((row) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)));
  return { traces: parsed(rows.traces), spans: parsed(rows.spans), scores: parsed(rows.scores) };
}
