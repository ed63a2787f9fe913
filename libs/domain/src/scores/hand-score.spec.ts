import { handScoreFacts, parseHandScoreMessage } from './hand-score';

const target = { projectId: '00000000-0000-4000-8000-000000000001', receivedAt: '2026-11-27T06:00:00.000Z' };
const ids = {
  id: '00000000-0000-4000-8000-0000000000a1',
  traceId: '00000000-0000-4000-8000-0000000000b1',
  spanId: '00000000-0000-4000-8000-0000000000c1',
};
const upsert = {
  op: 'upsert',
  changeId: '00000000-0000-4000-8000-0000000000d1',
  ...ids,
  name: 'tone',
  value: 'polite',
  dataType: 'CATEGORICAL',
  comment: 'kind',
  authorUserId: 'u1',
  authorEmail: 'ann@example.com',
};

describe(parseHandScoreMessage.name, () => {
  it('reads a score with its author as an ANNOTATION score stamped with its change', () => {
    const facts = handScoreFacts(parseHandScoreMessage(upsert), target);
    expect(facts.scores).toEqual([
      {
        projectId: target.projectId,
        id: ids.id,
        externalId: null,
        createdAt: target.receivedAt,
        values: {
          traceId: ids.traceId,
          spanId: ids.spanId,
          name: 'tone',
          value: 'polite',
          dataType: 'CATEGORICAL',
          comment: 'kind',
          authorUserId: 'u1',
          authorEmail: 'ann@example.com',
          source: 'ANNOTATION',
          timestamp: target.receivedAt,
        },
        versions: expect.any(Object),
      },
    ]);
    expect(new Set(Object.values(facts.scores[0].versions))).toEqual(new Set([`${target.receivedAt}|${upsert.changeId}`]));
  });

  it('reads a removal as a score deletion', () => {
    expect(handScoreFacts(parseHandScoreMessage({ op: 'delete', ...ids }), target).scoreDeletions).toEqual([
      { projectId: target.projectId, ...ids, deletedAt: target.receivedAt },
    ]);
  });

  it('refuses a message without its author, naming the field', () => {
    expect(() => parseHandScoreMessage({ ...upsert, authorEmail: undefined })).toThrow('not an ingest.hand-score/v1 message: authorEmail');
    expect(() => parseHandScoreMessage({ op: 'rename' })).toThrow('op: must be one of upsert, delete');
  });
});
