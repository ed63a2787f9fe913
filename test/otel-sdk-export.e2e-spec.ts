import { SpanKind, context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { send } from './support/api';
import { laterSeq } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

type Compression = NonNullable<NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>['compression']>;

interface AgentRun {
  traceId: string;
  rootId: string;
  llmId: string;
  toolId: string;
}

describe('OpenTelemetry JS SDK (OTLPTraceExporter, http/json) → Spanlog', () => {
  let stack: Stack;
  let key: string;

  /** An agent run as an instrumented app makes it: the real SDK, exporter and batch processor. */
  async function exportAgentRun(service: string, compression: Compression): Promise<AgentRun> {
    const exporter = new OTLPTraceExporter({
      url: `${stack.baseUrl}/api/v1/otel/traces`,
      headers: { Authorization: `Bearer ${key}` },
      compression,
    });
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': service }),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('spanlog-e2e-agent', '1.0.0');
    const root = tracer.startSpan('agent run', { attributes: { 'platform.span.type': 'AGENT' } });
    const inRoot = trace.setSpan(context.active(), root);
    const llm = tracer.startSpan(
      'chat gpt-4o-mini',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 42,
          'gen_ai.usage.output_tokens': 17,
          'gen_ai.prompt': 'What is the weather in Paris?',
          'gen_ai.completion': 'Let me look it up.',
        },
      },
      inRoot,
    );
    llm.end();
    const tool = tracer.startSpan('get_weather', { attributes: { 'tool.name': 'get_weather', 'tool.city': 'Paris' } }, inRoot);
    tool.end();
    root.end();
    // Rejects when the export fails (the exporter treats any non-2xx as a failure).
    await provider.forceFlush();
    await provider.shutdown();
    return {
      traceId: root.spanContext().traceId,
      rootId: root.spanContext().spanId,
      llmId: llm.spanContext().spanId,
      toolId: tool.spanContext().spanId,
    };
  }

  async function readTrace(traceId: string) {
    const res = await send(stack, 'GET', `/api/v1/traces/${traceId}?minSeq=${await laterSeq(stack, key)}`, { token: key });
    expect(res.status).toBe(200);
    return res.body;
  }

  beforeAll(async () => {
    stack = await startStack();
    const res = await runCli(
      [
        'admin',
        'bootstrap',
        '--email',
        'sdk@spanlog.test',
        '--password',
        'correct horse battery',
        '--org',
        'SDK',
        '--project',
        'main',
        '--json',
      ],
      stack.env,
    );
    expect(res).toMatchObject({ code: 0 });
    key = (JSON.parse(res.stdout) as { apiKey: string }).apiKey;
  }, 120_000);

  afterAll(() => stack?.stop());

  // The exporter's option is a string enum the package does not export.
  it.each([
    ['uncompressed', 'none' as Compression],
    ['gzip-compressed', 'gzip' as Compression],
  ])('stores an agent run sent %s as one trace with its tree, types, model and tokens', async (label, compression) => {
    const service = `agent-${label}`;
    const run = await exportAgentRun(service, compression);
    const stored = await readTrace(run.traceId);
    expect(stored).toMatchObject({
      otelTraceId: run.traceId,
      name: 'agent run',
      tags: [`service:${service}`],
      metadata: expect.objectContaining({ 'service.name': service }),
      spanCount: 3,
      totalTokens: 59,
    });
    const bySpanId = Object.fromEntries(stored.spans.map((s: any) => [s.otelSpanId, s]));
    const root = bySpanId[run.rootId];
    expect(root).toMatchObject({ name: 'agent run', type: 'AGENT', parentId: null });
    expect(bySpanId[run.llmId]).toMatchObject({
      name: 'chat gpt-4o-mini',
      type: 'LLM',
      parentId: root.id,
      model: 'gpt-4o-mini',
      promptTokens: 42,
      completionTokens: 17,
      input: 'What is the weather in Paris?',
      output: 'Let me look it up.',
    });
    expect(bySpanId[run.toolId]).toMatchObject({
      name: 'get_weather',
      type: 'TOOL',
      parentId: root.id,
      attributes: expect.objectContaining({ 'tool.city': 'Paris' }),
    });
  });
});
