import { morePages } from './traces.command';

describe(morePages.name, () => {
  const page = { spanCount: 3, spans: [{}], scoreCount: 0, scores: [], nextSpansCursor: null, nextScoresCursor: null };

  it('says nothing when the page is the whole trace', () => {
    expect(morePages('t1', page)).toEqual([]);
  });

  it('says how many spans and scores are shown and gives the command or request for the rest', () => {
    expect(
      morePages('t1', { ...page, nextSpansCursor: 'c1', scoreCount: 1_200, scores: new Array(1_000).fill({}), nextScoresCursor: 'c2' }),
    ).toEqual([
      '1 of 3 spans shown; next page: spanlog traces get t1 --spans-cursor c1',
      '1000 of 1200 scores shown; the rest: GET /api/v1/traces/t1/scores?cursor=c2',
    ]);
  });
});
