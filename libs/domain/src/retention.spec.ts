import { deletionFacts, parseTraceDeletionBatch, retentionCutoff } from './retention';

describe(retentionCutoff.name, () => {
  const now = Date.UTC(2026, 10, 22, 12);

  it.each([
    ['free', 7],
    ['pro', 30],
    ['growth', 60],
    ['team', 90],
  ] as const)('keeps %s traces for %i days from createdAt', (plan, days) => {
    expect(retentionCutoff(plan, now)?.toISOString()).toBe(new Date(now - days * 86_400_000).toISOString());
  });

  it('never expires Enterprise', () => {
    expect(retentionCutoff('enterprise', now)).toBeNull();
  });
});

describe(parseTraceDeletionBatch.name, () => {
  const id = '0af76519-16cd-43dd-8448-eb211c80319c';

  it('reads a deletion and states one fact per trace', () => {
    const batch = parseTraceDeletionBatch({ reason: 'retention', cutoff: '2026-11-15T12:00:00.000Z', traceIds: [id] });
    expect(deletionFacts(batch, { projectId: 'p', receivedAt: '2026-11-22T12:00:00.000Z' })).toEqual([
      { projectId: 'p', id, deletedAt: '2026-11-22T12:00:00.000Z' },
    ]);
  });

  it.each([
    null,
    { reason: 'whim', cutoff: '2026-11-15T12:00:00.000Z', traceIds: [id] },
    { reason: 'retention', cutoff: 'soon', traceIds: [id] },
    { reason: 'retention', cutoff: '2026-11-15T12:00:00.000Z', traceIds: ['not-a-uuid'] },
    { reason: 'retention', cutoff: '2026-11-15T12:00:00.000Z', traceIds: Array(1_001).fill(id) },
  ])('refuses %j', (value) => {
    expect(() => parseTraceDeletionBatch(value)).toThrow('not an ingest.deleted/v1 message');
  });
});
