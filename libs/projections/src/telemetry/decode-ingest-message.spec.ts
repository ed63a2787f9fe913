import { foldFacts } from '@app/domain';
import { otlpToFacts } from '@app/otlp';
import { ENVELOPE, OTLP_MESSAGE_ENVELOPE, PARENT_HEX, SPAN_HEX, TRACE_HEX, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { ingestFactsOf } from './decode-ingest-message';

describe(ingestFactsOf.name, () => {
  it("folds a message's facts as it decodes them: an export's trace once, however many of its spans state it", () => {
    const body = exportOf([
      span({ spanId: PARENT_HEX, parentSpanId: undefined, name: 'root' }),
      span({ spanId: SPAN_HEX, name: 'child' }),
      span({ spanId: 'eee19b7ec3c1b175', name: 'sibling' }),
    ]);
    const facts = ingestFactsOf(OTLP_MESSAGE_ENVELOPE, body);
    expect(facts.traces.map((t) => t.otelTraceId)).toEqual([TRACE_HEX]);
    expect(facts.spans).toHaveLength(3);
    // The batch's fold then finds what it would have found from the unfolded facts.
    expect(foldFacts([facts])).toEqual(foldFacts([otlpToFacts(body, ENVELOPE)]));
  });
});
