import { DomainError } from '../errors';
import { validateDatasetInput, validateDatasetItemsRequest, validateLangfuseDatasetItem, validateRunItemBody } from './validate-dataset';

const refusal = (run: () => unknown): { code: string; message: string } => {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('not refused');
};

describe(validateDatasetItemsRequest.name, () => {
  it('takes one item or a list, gives an id to an item without one, ACTIVE by default, the last of an id given twice', () => {
    const [one] = validateDatasetItemsRequest({ input: { q: 1 }, expectedOutput: 'a' });
    expect(one).toMatchObject({ input: { q: 1 }, expectedOutput: 'a', metadata: null, status: 'ACTIVE', sourceTraceId: null });
    expect(one.id).toMatch(/^[0-9a-f-]{36}$/);
    const list = validateDatasetItemsRequest({ items: [{ id: 'x', input: 1 }, { id: 'y' }, { id: 'x', input: 2, status: 'ARCHIVED' }] });
    expect(list.map((i) => [i.id, i.input, i.status])).toEqual([
      ['x', 2, 'ARCHIVED'],
      ['y', null, 'ACTIVE'],
    ]);
  });

  it('replaces text Postgres cannot store, as every stored JSON value', () => {
    expect(validateDatasetItemsRequest({ input: 'a\u0000b\ud800' })[0].input).toBe('ab\ufffd');
  });

  it.each([
    [{ items: {} }, 'VALIDATION_ERROR', 'items: must be an array'],
    [{ items: [{ status: 'DONE' }] }, 'VALIDATION_ERROR', 'items[0].status: must be one of ACTIVE, ARCHIVED'],
    [{ items: [{ id: '' }] }, 'VALIDATION_ERROR', 'items[0].id: is required'],
    [{ items: [1] }, 'VALIDATION_ERROR', 'items[0]: must be an object'],
    [[], 'VALIDATION_ERROR', 'body must be an item object or an object with an "items" array'],
    [{ items: Array.from({ length: 1_001 }, () => ({})) }, 'PAYLOAD_TOO_LARGE', 'items has 1001 items; at most 1000 are allowed'],
  ])('refuses %j: %s %s', (body, code, message) => {
    expect(refusal(() => validateDatasetItemsRequest(body))).toEqual({ code, message });
  });

  it('refuses an item over 1 MB with 413, naming it', () => {
    const { code, message } = refusal(() => validateDatasetItemsRequest({ items: [{}, { expectedOutput: 'x'.repeat(1024 * 1024) }] }));
    expect(code).toBe('PAYLOAD_TOO_LARGE');
    expect(message).toMatch(/^items\[1\]: is 10485\d\d bytes of input, expectedOutput and metadata; at most 1048576 are allowed$/);
  });
});

describe(validateDatasetInput.name, () => {
  it('needs a name; description and metadata are optional', () => {
    expect(validateDatasetInput({ name: 'qa', metadata: { a: 1 } })).toEqual({ name: 'qa', description: undefined, metadata: { a: 1 } });
    expect(refusal(() => validateDatasetInput({ description: 'x' }))).toEqual({ code: 'VALIDATION_ERROR', message: 'name: is required' });
    expect(refusal(() => validateDatasetInput({ name: 'qa', metadata: [] }))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'metadata: must be an object',
    });
  });
});

describe(validateLangfuseDatasetItem.name, () => {
  it("reads Langfuse's item body: the dataset by name, the span as its observation", () => {
    expect(
      validateLangfuseDatasetItem({ datasetName: 'qa', id: 'i1', input: 'q', sourceTraceId: 't', sourceObservationId: 's' }),
    ).toMatchObject({
      datasetName: 'qa',
      item: { id: 'i1', input: 'q', sourceTraceId: 't', sourceSpanId: 's', status: 'ACTIVE' },
    });
  });
});

describe(validateRunItemBody.name, () => {
  it('needs the run name, the item and the trace; the observation is the span', () => {
    expect(
      validateRunItemBody({ runName: 'r', datasetItemId: 'i', traceId: 't', observationId: 's', datasetVersion: '2026-01-01T00:00:00Z' }),
    ).toEqual({
      runName: 'r',
      runDescription: undefined,
      metadata: undefined,
      datasetItemId: 'i',
      traceId: 't',
      spanId: 's',
    });
    expect(refusal(() => validateRunItemBody({ runName: 'r', datasetItemId: 'i' }))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'traceId: is required',
    });
  });
});
