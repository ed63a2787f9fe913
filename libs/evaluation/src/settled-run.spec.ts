import type { ScoreConfigsByName } from '@app/domain';
import { type SettledRun, settledAgainstConfigs } from './settled-run';

const scored: SettledRun = {
  record: {
    status: 'done',
    score: 0.8,
    category: null,
    pass: null,
    comment: 'faithful',
    reason: null,
    error: null,
    attempts: 1,
    judge: { model: 'gpt-4.1-mini', promptTokens: 200, completionTokens: 40, cost: null },
  },
  score: { value: 0.8, dataType: 'NUMERIC', comment: 'faithful', metadata: {} },
};
const capped: ScoreConfigsByName = new Map([
  ['capped', { name: 'capped', dataType: 'NUMERIC', minValue: null, maxValue: 0.5, categories: [] }],
]);

describe(settledAgainstConfigs.name, () => {
  it("fails a run whose score the config of the evaluator's name refuses, keeping its attempts and call, and writes no score", () => {
    expect(settledAgainstConfigs(scored, 'capped', capped)).toEqual({
      score: null,
      record: {
        ...scored.record,
        status: 'failed',
        score: null,
        reason: 'score refused by its config',
        error: expect.stringMatching(/^score not written, its config refuses it: value: must be at most 0\.5/),
      },
    });
  });

  it('leaves a run the config takes, one of another name, and one without a score as they are', () => {
    const fits: SettledRun = { ...scored, score: { ...scored.score!, value: 0.4 } };
    expect(settledAgainstConfigs(fits, 'capped', capped)).toBe(fits);
    expect(settledAgainstConfigs(scored, 'other', capped)).toBe(scored);
    const none: SettledRun = { ...scored, score: null };
    expect(settledAgainstConfigs(none, 'capped', capped)).toBe(none);
  });
});
