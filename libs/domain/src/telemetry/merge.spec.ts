import fc from 'fast-check';
import { foldFacts, mergeTrace, mergeVersioned } from './merge';
import { type TraceDelta, type TraceFields, stamped, versionOf } from './records';

const traceDelta = (iso: string, eventId: string, values: Partial<TraceFields>, extra: Partial<TraceDelta> = {}): TraceDelta => ({
  projectId: 'p',
  id: 't',
  otelTraceId: null,
  externalId: null,
  createdAt: iso,
  firstEventTime: iso,
  minSpanStart: null,
  ...stamped(values, versionOf(iso, eventId)),
  ...extra,
});

describe(mergeVersioned.name, () => {
  it('lets the newer event win each field and older events fill only empty fields', () => {
    const older = stamped<TraceFields>({ name: 'old', userId: 'u1' }, versionOf('2024-01-01T00:00:01.000Z', 'a'));
    const newer = stamped<TraceFields>({ name: 'new' }, versionOf('2024-01-01T00:00:02.000Z', 'b'));
    expect(mergeVersioned(older, newer).values).toEqual({ name: 'new', userId: 'u1' });
    expect(mergeVersioned(newer, older).values).toEqual({ name: 'new', userId: 'u1' });
  });

  it('breaks timestamp ties with the greater event id', () => {
    const a = stamped<TraceFields>({ name: 'from-a' }, versionOf('2024-01-01T00:00:00.000Z', 'a'));
    const b = stamped<TraceFields>({ name: 'from-b' }, versionOf('2024-01-01T00:00:00.000Z', 'b'));
    expect(mergeVersioned(a, b).values.name).toBe('from-b');
    expect(mergeVersioned(b, a).values.name).toBe('from-b');
  });

  it('treats null as absent', () => {
    const set = stamped<TraceFields>({ name: 'kept' }, versionOf('2024-01-01T00:00:00.000Z', 'a'));
    const nulls = stamped<TraceFields>({ name: null as unknown as string }, versionOf('2024-01-02T00:00:00.000Z', 'b'));
    expect(mergeVersioned(set, nulls).values.name).toBe('kept');
  });
});

describe(foldFacts.name, () => {
  const deltaArb = fc
    .record({
      second: fc.integer({ min: 0, max: 5 }),
      eventId: fc.constantFrom('a', 'b', 'c', 'd'),
      name: fc.boolean(),
      userId: fc.boolean(),
      spanStart: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    })
    .map(({ second, eventId, name, userId, spanStart }) => {
      const iso = `2024-01-01T00:00:0${second}.000Z`;
      // Values derive from the version, as they do for real events: one event, one content.
      const values: Partial<TraceFields> = {};
      if (name) values.name = `name@${iso}|${eventId}`;
      if (userId) values.userId = `user@${iso}|${eventId}`;
      return traceDelta(iso, eventId, values, { minSpanStart: spanStart === undefined ? null : `2024-01-01T00:01:0${spanStart}.000Z` });
    });

  it('gives the same rows whatever the order and however often events repeat', () => {
    fc.assert(
      fc.property(fc.array(deltaArb, { minLength: 1, maxLength: 12 }), fc.infiniteStream(fc.nat()), (deltas, seeds) => {
        const shuffled = [...deltas, ...deltas.slice(0, 3)]
          .map((d) => ({ d, k: seeds.next().value as number }))
          .sort((x, y) => x.k - y.k)
          .map((x) => x.d);
        const a = foldFacts([{ traces: deltas, spans: [], scores: [], runItems: [], deletions: [], scoreDeletions: [] }]).traces;
        const b = foldFacts(
          shuffled.map((d) => ({ traces: [d], spans: [], scores: [], runItems: [], deletions: [], scoreDeletions: [] })),
        ).traces;
        expect(b).toEqual(a);
      }),
    );
  });

  it('changes none of the deltas it folds, however many of them merge into one row', () => {
    fc.assert(
      fc.property(fc.array(deltaArb, { minLength: 1, maxLength: 12 }), (deltas) => {
        const facts = [{ traces: deltas, spans: [], scores: [], runItems: [], deletions: [], scoreDeletions: [] }];
        const before = structuredClone(facts);
        foldFacts(facts);
        // The live runner applies a failed batch's messages one by one from the same decoded facts.
        expect(facts).toEqual(before);
      }),
    );
  });

  it('keeps the earliest createdAt and span start', () => {
    const merged = mergeTrace(
      traceDelta('2024-01-02T00:00:00.000Z', 'a', {}, { minSpanStart: '2024-01-02T00:00:00.000Z' }),
      traceDelta('2024-01-01T00:00:00.000Z', 'b', {}, { minSpanStart: null }),
    );
    expect(merged.createdAt).toBe('2024-01-01T00:00:00.000Z');
    expect(merged.minSpanStart).toBe('2024-01-02T00:00:00.000Z');
  });
});
