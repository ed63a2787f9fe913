import { randomBytes } from 'node:crypto';
import { nativeId, otelTraceUuid } from '@app/domain';
import type { KeyValue, Span } from '@app/otlp';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';

/**
 * The bench's request bodies: an OTLP export of 100 spans and a native batch of 100
 * events, about 1 KB per span, as an agent framework sends them (gen_ai attributes,
 * prompts and completions). Every request must carry new ids: the API derives message ids
 * from the content, so a repeated body would be dropped by JetStream's duplicate window
 * and the processor would have nothing to do. A body is therefore rendered from a template
 * by writing the request number over a marker, which costs the load generator a string
 * join instead of a JSON serialization.
 */

const MARKER = 'XXXXXXXX';
const TRACES_PER_REQUEST = 10;
export const SPANS_PER_TRACE = 10;
const SPANS_PER_REQUEST = TRACES_PER_REQUEST * SPANS_PER_TRACE;

export interface Payload {
  kind: 'otlp' | 'native';
  path: string;
  /** Spans (OTLP) or events (native) in one request. */
  items: number;
  /** Span rows one request makes (a native trace-create is a trace, not a span). */
  spansPerRequest: number;
  bytes: number;
  /** The body of request number `n` (0 ≤ n < 2^32): ids unique to `n`. */
  render(n: number): string;
  /** The ids under which request `n`'s traces can be read back. */
  traceIds(n: number): string[];
  /** The `trace_id` of request `n`'s rows: where its spans are counted. */
  traceUuids(n: number): string[];
}

const requestHex = (n: number): string => n.toString(16).padStart(8, '0');

/** Text of roughly `length` characters, so spans reach their realistic size. */
const prose = (seed: string, length: number): string => {
  const words = [
    'the',
    'agent',
    'called',
    'a',
    'tool',
    'to',
    'look',
    'up',
    'order',
    'status',
    'and',
    'summarized',
    'refund',
    'policy',
    'for',
    'customer',
  ];
  let text = seed;
  for (let i = 0; text.length < length; i++) text += ` ${words[(i * 7 + seed.length) % words.length]}`;
  return text.slice(0, length);
};

/** Renders `json` with request number `n` written over every marker. */
function template(json: string): (n: number) => string {
  const pieces = json.split(MARKER);
  return (n) => pieces.join(requestHex(n));
}

let nextRequest = 0;
/** Request numbers are unique over the whole run, whichever stage sends the request. */
export const takeRequestNumber = (): number => nextRequest++;

/** One trace: an agent invocation, then alternating model calls and tool calls. */
function otlpTrace(traceHex: string, t: number, startNs: bigint): Span[] {
  const spanHex = (s: number) => `${t.toString(16).padStart(2, '0')}${s.toString(16).padStart(2, '0')}00000000000a`;
  const at = (offsetMs: number) => String(startNs + BigInt(offsetMs) * 1_000_000n);
  const root = span({
    traceId: traceHex,
    spanId: spanHex(0),
    parentSpanId: undefined,
    name: 'invoke_agent support-agent',
    kind: 2,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(4_000),
    attributes: attrs({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support-agent',
      'gen_ai.conversation.id': `conv-${traceHex.slice(0, 12)}`,
      'user.id': `user-${t}`,
      'session.id': `session-${t % 3}`,
      'deployment.environment.name': 'production',
      'input.value': prose('Where is my order #4411? It was due on Monday and I still have no tracking number.', 240),
      'output.value': prose('Your order shipped this morning; the tracking number is 1Z999AA10123456784.', 180),
    }),
  });
  const children: Span[] = [];
  for (let s = 1; s < SPANS_PER_TRACE; s++) {
    const common = {
      traceId: traceHex,
      spanId: spanHex(s),
      parentSpanId: spanHex(0),
      startTimeUnixNano: at(s * 400),
      endTimeUnixNano: at(s * 400 + 350),
    };
    const attributes: KeyValue[] =
      s % 2 === 1
        ? attrs({
            'gen_ai.operation.name': 'chat',
            'gen_ai.system': 'openai',
            'gen_ai.request.model': 'gpt-4o-mini',
            'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
            'gen_ai.request.temperature': 0.2,
            'gen_ai.request.max_tokens': 1024,
            'gen_ai.usage.input_tokens': 812 + s,
            'gen_ai.usage.output_tokens': 96 + s,
            'gen_ai.response.finish_reasons': 'stop',
            'gen_ai.prompt': prose(`[{"role":"user","content":"step ${s}: what is the status of order 4411?`, 170),
            'gen_ai.completion': prose(`[{"role":"assistant","content":"step ${s}: calling lookup_order`, 120),
          })
        : attrs({
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'lookup_order',
            'gen_ai.tool.call.id': `call_${traceHex.slice(0, 8)}_${s}`,
            'tool.name': 'lookup_order',
            'input.value': prose(`{"order_id":"4411","fields":["status","carrier","eta"],"step":${s}`, 160),
            'output.value': prose('{"status":"shipped","carrier":"UPS","eta":"2025-11-20","items":3', 190),
          });
    children.push(
      span({ ...common, name: s % 2 === 1 ? 'chat gpt-4o-mini' : 'execute_tool lookup_order', kind: s % 2 === 1 ? 3 : 1, attributes }),
    );
  }
  return [root, ...children];
}

export function otlpPayload(): Payload {
  const runHex = randomBytes(11).toString('hex');
  const traceHex = (t: number, n?: number) => `${n === undefined ? MARKER : requestHex(n)}${t.toString(16).padStart(2, '0')}${runHex}`;
  const startNs = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: TRACES_PER_REQUEST }, (_, t) => otlpTrace(traceHex(t), t, startNs)).flat();
  const resource = attrs({
    'service.name': 'support-bot',
    'service.version': '2.4.1',
    'telemetry.sdk.language': 'python',
    'telemetry.sdk.name': 'opentelemetry',
    'telemetry.sdk.version': '1.37.0',
  });
  const render = template(
    JSON.stringify(exportOf(spans, { resource, scope: { name: 'opentelemetry.instrumentation.openai_agents', version: '0.1.0' } })),
  );
  return {
    kind: 'otlp',
    path: '/api/v1/otel/v1/traces',
    items: SPANS_PER_REQUEST,
    spansPerRequest: SPANS_PER_REQUEST,
    bytes: Buffer.byteLength(render(0)),
    render,
    traceIds: (n) => Array.from({ length: TRACES_PER_REQUEST }, (_, t) => traceHex(t, n)),
    traceUuids: (n) => Array.from({ length: TRACES_PER_REQUEST }, (_, t) => otelTraceUuid(traceHex(t, n))),
  };
}

/** The same shape as native events: per trace a trace-create, then generations and tool spans. */
export function nativePayload(): Payload {
  const run = randomBytes(4).toString('hex');
  const traceId = (t: number, n?: number) => `bench-${run}-${n === undefined ? MARKER : requestHex(n)}-t${t}`;
  const t0 = Date.now();
  const iso = (offsetMs: number) => new Date(t0 + offsetMs).toISOString();
  const batch: unknown[] = [];
  for (let t = 0; t < TRACES_PER_REQUEST; t++) {
    const trace = traceId(t);
    batch.push({
      id: `${trace}-e`,
      type: 'trace-create',
      timestamp: iso(0),
      body: {
        id: trace,
        name: 'support-agent',
        userId: `user-${t}`,
        sessionId: `session-${t % 3}`,
        environment: 'production',
        tags: ['support', 'orders'],
        input: prose('Where is my order #4411? It was due on Monday and I still have no tracking number.', 380),
        output: prose('Your order shipped this morning; the tracking number is 1Z999AA10123456784.', 300),
      },
    });
    for (let s = 1; s < SPANS_PER_TRACE; s++) {
      const common = { id: `${trace}-s${s}`, traceId: trace, startTime: iso(s * 400), endTime: iso(s * 400 + 350) };
      batch.push(
        s % 2 === 1
          ? {
              id: `${trace}-s${s}-e`,
              type: 'generation-create',
              timestamp: iso(s * 400),
              body: {
                ...common,
                name: 'chat gpt-4o-mini',
                model: 'gpt-4o-mini',
                modelParameters: { temperature: 0.2, max_tokens: 1024 },
                usage: { input: 812 + s, output: 96 + s, total: 908 + 2 * s },
                input: [{ role: 'user', content: prose(`step ${s}: what is the status of order 4411?`, 340) }],
                output: { role: 'assistant', content: prose(`step ${s}: calling lookup_order`, 260) },
              },
            }
          : {
              id: `${trace}-s${s}-e`,
              type: 'span-create',
              timestamp: iso(s * 400),
              body: {
                ...common,
                name: 'lookup_order',
                type: 'TOOL',
                input: { order_id: '4411', fields: ['status', 'carrier', 'eta'], note: prose(`step ${s}`, 260) },
                output: { status: 'shipped', carrier: 'UPS', eta: '2025-11-20', note: prose('three items', 260) },
              },
            },
      );
    }
  }
  const render = template(JSON.stringify({ batch }));
  return {
    kind: 'native',
    path: '/api/v1/traces',
    items: batch.length,
    spansPerRequest: TRACES_PER_REQUEST * (SPANS_PER_TRACE - 1),
    bytes: Buffer.byteLength(render(0)),
    render,
    traceIds: (n) => Array.from({ length: TRACES_PER_REQUEST }, (_, t) => traceId(t, n)),
    traceUuids: (n) => Array.from({ length: TRACES_PER_REQUEST }, (_, t) => nativeId(traceId(t, n)).id),
  };
}
