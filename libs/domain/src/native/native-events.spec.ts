import { NATIVE_EVENT_TYPES, writesSpan } from './native-events.dto';

describe(writesSpan.name, () => {
  it('counts span, generation and event events as spans, and traces, scores and SDK logs not', () => {
    expect(NATIVE_EVENT_TYPES.filter(writesSpan)).toEqual([
      'span-create',
      'span-update',
      'generation-create',
      'generation-update',
      'event-create',
    ]);
  });
});
