// An application instrumented the way each library's README says, run as its own Node process:
// the instrumentations patch `openai` through Node's require hooks, which jest's module system
// bypasses, and Node 20 runs no TypeScript, hence plain CommonJS. It asks the (fake) OpenAI
// server one question, exports to Spanlog, and prints {"traceId"} once everything is flushed.
// Environment: LIBRARY (otel | openinference | traceloop | vercel | langfuse), SPANLOG_URL,
// SPANLOG_API_KEY, OPENAI_BASE_URL.
'use strict';

const { LIBRARY, SPANLOG_URL, SPANLOG_API_KEY, OPENAI_BASE_URL } = process.env;
const QUESTION = 'What is the capital of France?';
const MESSAGES = [
  { role: 'system', content: 'You answer geography questions.' },
  { role: 'user', content: QUESTION },
];
const otlp = (signal) => ({ url: `${SPANLOG_URL}/api/v1/otel/v1/${signal}`, headers: { Authorization: `Bearer ${SPANLOG_API_KEY}` } });

async function withOtelSdk(instrumentation, ask) {
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = require('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation');
  const resource = resourceFromAttributes({ 'service.name': `spanlog-e2e-${LIBRARY}` });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(otlp('traces')))] });
  provider.register();
  let loggerProvider;
  if (LIBRARY === 'otel') {
    const { LoggerProvider, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
    const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
    loggerProvider = new LoggerProvider({
      resource,
      processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter(otlp('logs')) })],
    });
    require('@opentelemetry/api-logs').logs.setGlobalLoggerProvider(loggerProvider);
  }
  if (instrumentation) registerInstrumentations({ instrumentations: [instrumentation()] });
  const tracer = require('@opentelemetry/api').trace.getTracer('spanlog-e2e-app');
  const traceId = await tracer.startActiveSpan('question', async (root) => {
    await ask();
    root.end();
    return root.spanContext().traceId;
  });
  // Rejects when an export fails: the exporters treat any non-2xx answer as a failure.
  await provider.forceFlush();
  if (loggerProvider) await loggerProvider.forceFlush();
  await provider.shutdown();
  if (loggerProvider) await loggerProvider.shutdown();
  return traceId;
}

async function askOpenAI() {
  const OpenAI = require('openai');
  const client = new OpenAI({ baseURL: OPENAI_BASE_URL, apiKey: 'sk-spanlog-e2e' });
  const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES, temperature: 0 });
  return answer;
}

async function withLangfuse() {
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
  const { LangfuseSpanProcessor } = require('@langfuse/otel');
  const { startActiveObservation, getActiveTraceId } = require('@langfuse/tracing');
  // Only a base URL and keys: the processor finds /api/public/otel/v1/traces by itself.
  const processor = new LangfuseSpanProcessor({ baseUrl: SPANLOG_URL, publicKey: 'pk-lf-anything', secretKey: SPANLOG_API_KEY });
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  provider.register();
  const traceId = await startActiveObservation('answer-question', async () => {
    await startActiveObservation(
      'chat gpt-4o-mini',
      async (generation) => {
        generation.update({ model: 'gpt-4o-mini', input: MESSAGES });
        const answer = await askOpenAI();
        generation.update({
          output: answer.choices[0].message,
          usageDetails: { input: answer.usage.prompt_tokens, output: answer.usage.completion_tokens, total: answer.usage.total_tokens },
        });
      },
      { asType: 'generation' },
    );
    return getActiveTraceId();
  });
  await provider.forceFlush();
  await provider.shutdown();
  return traceId;
}

async function askVercel() {
  const { generateText } = require('ai');
  const { createOpenAI } = require('@ai-sdk/openai');
  const openai = createOpenAI({ baseURL: OPENAI_BASE_URL, apiKey: 'sk-spanlog-e2e' });
  await generateText({
    model: openai.chat('gpt-4o-mini'),
    system: MESSAGES[0].content,
    prompt: QUESTION,
    experimental_telemetry: { isEnabled: true },
  });
}

const RUNS = {
  otel: () =>
    withOtelSdk(
      () => new (require('@opentelemetry/instrumentation-openai').OpenAIInstrumentation)({ captureMessageContent: true }),
      askOpenAI,
    ),
  openinference: () => withOtelSdk(() => new (require('@arizeai/openinference-instrumentation-openai').OpenAIInstrumentation)(), askOpenAI),
  traceloop: () =>
    withOtelSdk(() => new (require('@traceloop/instrumentation-openai').OpenAIInstrumentation)({ traceContent: true }), askOpenAI),
  vercel: () => withOtelSdk(null, askVercel),
  langfuse: withLangfuse,
};

RUNS[LIBRARY]().then(
  (traceId) => process.stdout.write(`${JSON.stringify({ traceId })}\n`),
  (err) => {
    process.stderr.write(`${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
