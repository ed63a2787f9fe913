import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { DomainError, foldFacts, mergeSpan } from '@app/domain';
import { otlpToFacts } from '../otlp-to-facts';
import { ENVELOPE, attrs, kv, kvlist, str } from '../testing/otlp-builders';
import { genAiLogsOf, otlpLogsToFacts } from './otlp-logs-to-facts';
import type { ExportLogsServiceRequest, LogRecord } from './otlp-logs-types';
import { validateOtlpLogsRequest } from './validate-otlp-logs';

const captured = JSON.parse(readFileSync(resolve(__dirname, '../testing/captured/otel-instrumentation-openai.json'), 'utf8')) as {
  requests: { path: string; body: any }[];
};
const spanExport = captured.requests.find((r) => r.path === '/v1/traces')!.body;
const logsExport = captured.requests.find((r) => r.path === '/v1/logs')!.body as ExportLogsServiceRequest;

const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';
const record = (overrides: Partial<LogRecord> = {}): LogRecord => ({
  timeUnixNano: '1736935200000000000',
  traceId: TRACE,
  spanId: SPAN,
  ...overrides,
});
const logsOf = (...logRecords: LogRecord[]): ExportLogsServiceRequest => ({
  resourceLogs: [{ resource: { attributes: attrs({ 'service.name': 'svc' }) }, scopeLogs: [{ scope: { name: 'lib' }, logRecords }] }],
});

describe('OTLP log records with GenAI content (captured from @opentelemetry/instrumentation-openai)', () => {
  const spanFacts = otlpToFacts(spanExport, ENVELOPE);
  const logFacts = otlpLogsToFacts(logsExport, { ...ENVELOPE, receivedAt: '2025-01-15T10:05:01.000Z' });

  it('attaches the messages as the input and the choice as the output of the span the records name', () => {
    const [span] = foldFacts([spanFacts, logFacts]).spans;
    expect(span.values).toMatchObject({
      type: 'LLM',
      model: 'gpt-4o-mini',
      promptTokens: 23,
      completionTokens: 7,
      input: [
        { role: 'system', content: 'You answer geography questions.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      output: [{ finish_reason: 'stop', index: 0, message: { content: 'The capital of France is Paris.' } }],
    });
  });

  it('gives the same span whichever arrives first', () => {
    expect(mergeSpan(spanFacts.spans[0], logFacts.spans[0])).toEqual(mergeSpan(logFacts.spans[0], spanFacts.spans[0]));
  });

  it('mentions the trace, so content that arrives before its span still belongs to a trace row', () => {
    expect(logFacts.traces).toEqual([
      expect.objectContaining({ id: spanFacts.traces[0].id, otelTraceId: spanFacts.traces[0].otelTraceId, values: {} }),
    ]);
  });

  it('content the span states in its attributes wins over records dated after it, even in the future, in either order', () => {
    const ownSpan = spanExport.resourceSpans[0].scopeSpans[0].spans[0];
    const in2099 = otlpLogsToFacts(
      logsOf(
        record({
          timeUnixNano: '4070908800000000000',
          traceId: ownSpan.traceId,
          spanId: ownSpan.spanId,
          eventName: 'gen_ai.user.message',
          body: kvlist(kv('content', str('from the log'))),
        }),
      ),
      ENVELOPE,
    );
    const withPrompt = otlpToFacts(
      { resourceSpans: [{ scopeSpans: [{ spans: [{ ...ownSpan, attributes: attrs({ 'gen_ai.prompt': 'own' }) }] }] }] },
      ENVELOPE,
    );
    expect(withPrompt.spans[0].id).toBe(in2099.spans[0].id);
    expect(mergeSpan(in2099.spans[0], withPrompt.spans[0]).values.input).toBe('own');
    expect(mergeSpan(withPrompt.spans[0], in2099.spans[0]).values.input).toBe('own');
  });

  it('among records the newest fills the field, in either order', () => {
    const at = (timeUnixNano: string, content: string) =>
      otlpLogsToFacts(
        logsOf(record({ timeUnixNano, eventName: 'gen_ai.user.message', body: kvlist(kv('content', str(content))) })),
        ENVELOPE,
      ).spans[0];
    const older = at('1736935200000000000', 'first');
    const newer = at('1736935260000000000', 'second');
    expect(JSON.stringify(mergeSpan(older, newer).values.input)).toContain('second');
    expect(mergeSpan(newer, older).values.input).toEqual(mergeSpan(older, newer).values.input);
  });

  it('content the span states in its attributes wins over its records (they are older: records are versioned by their own time)', () => {
    // The span is exported when it ends, after its records were written: it arrives later than their time.
    const afterTheRecords = { ...ENVELOPE, receivedAt: '2026-12-01T00:00:00.000Z' };
    const withPrompt = otlpToFacts(
      {
        resourceSpans: [
          {
            scopeSpans: [
              { spans: [{ ...spanExport.resourceSpans[0].scopeSpans[0].spans[0], attributes: attrs({ 'gen_ai.prompt': 'own' }) }] },
            ],
          },
        ],
      },
      afterTheRecords,
    );
    expect(mergeSpan(logFacts.spans[0], withPrompt.spans[0]).values.input).toBe('own');
    expect(mergeSpan(withPrompt.spans[0], logFacts.spans[0]).values.input).toBe('own');
  });
});

describe(genAiLogsOf.name, () => {
  it('keeps only records with a GenAI content event name and a trace and span id', () => {
    const kept = record({ eventName: 'gen_ai.user.message', body: kvlist(kv('content', str('Hi'))) });
    const body = logsOf(
      kept,
      record({ eventName: 'app.started' }),
      record({ attributes: attrs({ 'event.name': 'gen_ai.choice' }), spanId: '' }),
      record({ attributes: attrs({ 'event.name': 'gen_ai.choice' }), traceId: '00000000000000000000000000000000' }),
      record({ body: str('a plain log line') }),
    );
    expect(genAiLogsOf(body)).toEqual({
      request: {
        resourceLogs: [{ resource: body.resourceLogs![0].resource, scopeLogs: [{ scope: { name: 'lib' }, logRecords: [kept] }] }],
      },
      records: 1,
    });
    expect(genAiLogsOf(logsOf(record({ eventName: 'app.started' })))).toBeNull();
  });
});

describe(otlpLogsToFacts.name, () => {
  it('reads the event name from the eventName field first, then the event.name attribute', () => {
    const facts = otlpLogsToFacts(
      logsOf(
        record({ eventName: 'gen_ai.user.message', attributes: attrs({ 'event.name': 'other' }), body: kvlist(kv('content', str('Hi'))) }),
      ),
      ENVELOPE,
    );
    expect(facts.spans[0].values.input).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('states nothing for records without content it reads', () => {
    expect(otlpLogsToFacts(logsOf(record({ eventName: 'gen_ai.choice' })), ENVELOPE)).toEqual({
      traces: [],
      spans: [],
      scores: [],
      runItems: [],
      deletions: [],
      scoreDeletions: [],
    });
  });
});

describe(validateOtlpLogsRequest.name, () => {
  it('counts the records of a valid export', () => {
    expect(validateOtlpLogsRequest(logsExport)).toEqual({ recordCount: 3 });
    expect(validateOtlpLogsRequest({})).toEqual({ recordCount: 0 });
  });

  it.each([
    ['not an object', [], 'request body: must be an object (ExportLogsServiceRequest)'],
    [
      'a bad span id',
      logsOf(record({ spanId: 'zz' })),
      'resourceLogs[0].scopeLogs[0].logRecords[0].spanId: must be empty or 16 hex characters',
    ],
    [
      'an enum name for the severity',
      logsOf(record({ severityNumber: 'INFO' as never })),
      'resourceLogs[0].scopeLogs[0].logRecords[0].severityNumber: must be an integer, not an enum name ("INFO")',
    ],
    [
      'a body that is no AnyValue',
      logsOf(record({ body: { intValue: 'x' } as never })),
      'resourceLogs[0].scopeLogs[0].logRecords[0].body.intValue: must be a 64-bit integer, as a decimal string or a number',
    ],
  ])('refuses %s, naming the path', (_, body, message) => {
    expect(() => validateOtlpLogsRequest(body)).toThrow(new DomainError('VALIDATION_ERROR', message));
  });

  it('never throws anything but a validation error, and what it accepts converts without throwing', () => {
    const anyValue = fc.oneof(
      fc.record({ stringValue: fc.string() }),
      fc.record({ intValue: fc.oneof(fc.integer(), fc.string()) }),
      fc.record({
        kvlistValue: fc.record({ values: fc.array(fc.record({ key: fc.string(), value: fc.record({ stringValue: fc.string() }) })) }),
      }),
      fc.anything(),
    );
    const logRecord = fc.record(
      {
        traceId: fc.oneof(fc.constant(TRACE), fc.string()),
        spanId: fc.oneof(fc.constant(SPAN), fc.constant(''), fc.string()),
        eventName: fc.oneof(
          fc.constantFrom('gen_ai.user.message', 'gen_ai.choice', 'gen_ai.client.inference.operation.details'),
          fc.string(),
        ),
        timeUnixNano: fc.oneof(fc.nat().map(String), fc.anything()),
        body: anyValue,
        attributes: fc.array(fc.record({ key: fc.constantFrom('event.name', 'content', 'gen_ai.input.messages'), value: anyValue })),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.anything(),
      fc.record({
        resourceLogs: fc.array(fc.record({ scopeLogs: fc.array(fc.record({ logRecords: fc.array(logRecord, { maxLength: 4 }) })) })),
      }),
    );
    fc.assert(
      fc.property(body, (b) => {
        try {
          validateOtlpLogsRequest(b);
        } catch (err) {
          expect(err).toBeInstanceOf(DomainError);
          return;
        }
        otlpLogsToFacts(b as ExportLogsServiceRequest, ENVELOPE);
        genAiLogsOf(b as ExportLogsServiceRequest);
      }),
      { numRuns: 500 },
    );
  });
});
