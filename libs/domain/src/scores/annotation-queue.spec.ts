import type { JsonObject } from '../json/types';
import { ANNOTATION_QUEUE_LIMITS } from '../limits';
import { Optional, Required, validateDto } from '../validation';
import { queueName, queueScoreConfigIds, queueTargets } from './annotation-queue';

class QueueInput {
  @Optional(queueName) name?: string;
  @Optional(queueScoreConfigIds) scoreConfigIds?: string[];
}
class ItemsInput {
  @Required(queueTargets) items: unknown;
}

const TRACE = '0b4e5a52-4a5e-4cf4-9a1c-2f5e8b1d2c3a';
const SPAN = '7d1c2a3b-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const refusal = <T extends object>(cls: new () => T, input: object) => {
  const checked = validateDto(cls, input as JsonObject, '');
  return checked.ok ? null : checked.message;
};

describe('annotation queue fields', () => {
  it.each([
    ['a trace and a span', { items: [{ traceId: TRACE }, { traceId: TRACE, spanId: SPAN }] }, null],
    ['no item', { items: [] }, `items: must be an array of 1 to ${ANNOTATION_QUEUE_LIMITS.itemsPerRequest} items`],
    ['an item not an object', { items: [{ traceId: TRACE }, 'x'] }, 'items[1]: must be an object with traceId and, for a span, spanId'],
    ['a trace id not a UUID', { items: [{ traceId: 'abc' }] }, 'items[0].traceId: must be a UUID'],
    ['a span id not a UUID', { items: [{ traceId: TRACE, spanId: 7 }] }, 'items[0].spanId: must be a UUID, or absent for the whole trace'],
    ['an unknown field', { items: [{ traceId: TRACE, note: 'x' }] }, 'items[0].note: is not a field of an item (traceId, spanId)'],
  ])('items: %s', (_, input, message) => {
    expect(refusal(ItemsInput, input)).toBe(message);
  });

  it('refuses more items than one request may add', () => {
    const items = Array.from({ length: ANNOTATION_QUEUE_LIMITS.itemsPerRequest + 1 }, () => ({ traceId: TRACE }));
    expect(refusal(ItemsInput, { items })).toMatch(/^items: must be an array of 1 to/);
  });

  it.each([
    ['a name with spaces around it', { name: '  triage  ' }, null],
    ['a blank name', { name: '   ' }, /^name: must be a non-blank string/],
    ['a name with a NUL', { name: 'a\u0000b' }, /^name: /],
    ['two configs', { scoreConfigIds: [TRACE, SPAN] }, null],
    ['a config twice', { scoreConfigIds: [TRACE, TRACE] }, /^scoreConfigIds\[1\]: is given twice/],
    [
      'more configs than shortcut keys',
      { scoreConfigIds: Array(ANNOTATION_QUEUE_LIMITS.scoreConfigs + 1).fill(TRACE) },
      /^scoreConfigIds: must be an array of at most 9/,
    ],
  ])('queue fields: %s', (_, input, message) => {
    const got = refusal(QueueInput, input);
    if (message === null) expect(got).toBeNull();
    else expect(got).toMatch(message);
  });
});
