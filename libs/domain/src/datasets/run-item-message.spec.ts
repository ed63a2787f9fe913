import { otelSpanUuid, otelTraceUuid } from '../ids';
import { parseRunItemsMessage, runItemIdOf, runItemsToFacts } from './run-item-message';

const RUN = '0b7c6f3e-2a1d-4c5e-8f90-1a2b3c4d5e6f';
const TRACE = 'a1'.repeat(16);
const SPAN = 'b2'.repeat(8);
const target = { projectId: '5d2f0c1e-7a3b-4c6d-9e8f-0a1b2c3d4e5f', receivedAt: '2026-11-27T06:00:00.000Z' };

describe(parseRunItemsMessage.name, () => {
  it('reads the run items the API wrote, and maps their OTel ids as any score is mapped', () => {
    const id = runItemIdOf(RUN, 'item-1');
    const data = parseRunItemsMessage({
      runItems: [{ id, runId: RUN, datasetItemId: 'item-1', traceId: TRACE.toUpperCase(), spanId: SPAN }],
    });
    expect(runItemsToFacts(data, target).runItems).toEqual([
      {
        projectId: target.projectId,
        id,
        runId: RUN,
        datasetItemId: 'item-1',
        traceId: otelTraceUuid(TRACE),
        spanId: otelSpanUuid(TRACE, SPAN),
        otelTraceId: TRACE,
        otelSpanId: SPAN,
        createdAt: target.receivedAt,
        version: `${target.receivedAt}|${id}`,
      },
    ]);
  });

  it('names the record and field at fault, so the message is dead-lettered with the reason', () => {
    expect(() =>
      parseRunItemsMessage({ runItems: [{ id: runItemIdOf(RUN, 'a'), runId: 'nope', datasetItemId: 'a', traceId: TRACE }] }),
    ).toThrow('not an ingest.run-items/v1 message: runItems[0]: runId: must be a UUID');
    expect(() => parseRunItemsMessage({})).toThrow('runItems: must be an array of at most 1000 run items');
  });

  it('gives one run item per run and dataset item', () => {
    expect(runItemIdOf(RUN, 'a')).toBe(runItemIdOf(RUN, 'a'));
    expect(runItemIdOf(RUN, 'a')).not.toBe(runItemIdOf(RUN, 'b'));
  });
});
