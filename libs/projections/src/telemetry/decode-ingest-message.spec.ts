import { INGEST_SCHEMAS, type IngestEnvelope, foldFacts } from '@app/domain';
import { otlpToFacts } from '@app/otlp';
import { ENVELOPE, PARENT_HEX, SPAN_HEX, TRACE_HEX, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { ingestFactsOf } from './decode-ingest-message';

const envelope: IngestEnvelope = {
  schema: INGEST_SCHEMAS.otlp,
  orgId: '00000000-0000-4000-8000-000000000002',
  projectId: ENVELOPE.projectId,
  apiKeyId: '00000000-0000-4000-8000-000000000003',
  receivedAt: ENVELOPE.receivedAt,
  requestId: 'r',
  chunkIndex: 0,
  chunkCount: 1,
};

describe(ingestFactsOf.name, () => {
  it("folds a message's facts as it decodes them: an export's trace once, however many of its spans state it", () => {
    const body = exportOf([
      span({ spanId: PARENT_HEX, parentSpanId: undefined, name: 'root' }),
      span({ spanId: SPAN_HEX, name: 'child' }),
      span({ spanId: 'eee19b7ec3c1b175', name: 'sibling' }),
    ]);
    const facts = ingestFactsOf(envelope, body);
    expect(facts.traces.map((t) => t.otelTraceId)).toEqual([TRACE_HEX]);
    expect(facts.spans).toHaveLength(3);
    // The batch's fold then finds what it would have found from the unfolded facts.
    expect(foldFacts([facts])).toEqual(foldFacts([otlpToFacts(body, ENVELOPE)]));
  });
});
