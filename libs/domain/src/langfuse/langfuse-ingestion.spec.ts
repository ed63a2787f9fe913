import { validateNativeBatch } from '../native';
import { langfuseIngestionToNative } from './langfuse-ingestion';

const at = '2026-11-22T10:00:00.000Z';

describe(langfuseIngestionToNative.name, () => {
  it('turns the older observation events into the native event of their kind, without the kind', () => {
    const body = {
      batch: [
        {
          id: 'e1',
          type: 'observation-create',
          timestamp: at,
          body: { id: 'o1', traceId: 't1', type: 'GENERATION', name: 'chat', startTime: at, model: 'gpt-4o-mini' },
        },
        { id: 'e2', type: 'observation-update', timestamp: at, body: { id: 'o2', traceId: 't1', type: 'SPAN', output: 'done' } },
        {
          id: 'e3',
          type: 'observation-create',
          timestamp: at,
          body: { id: 'o3', traceId: 't1', type: 'EVENT', name: 'click', startTime: at },
        },
        { id: 'e4', type: 'score-create', timestamp: at, body: { traceId: 't1', name: 'quality', value: 1 } },
      ],
    };
    const native = langfuseIngestionToNative(body) as { batch: { type: string; body: Record<string, unknown> }[] };
    expect(native.batch.map((e) => e.type)).toEqual(['generation-create', 'span-update', 'event-create', 'score-create']);
    expect(native.batch[0].body).not.toHaveProperty('type');
    expect(validateNativeBatch(native).errors).toEqual([]);
  });

  it('leaves unknown types and bodies without a batch for the native validation to name', () => {
    const native = langfuseIngestionToNative({ batch: [{ id: 'e1', type: 'dataset-run-item-create', timestamp: at, body: {} }] });
    expect(validateNativeBatch(native).errors).toEqual([expect.objectContaining({ index: 0, id: 'e1' })]);
    expect(langfuseIngestionToNative({ events: [] })).toEqual({ events: [] });
  });
});
