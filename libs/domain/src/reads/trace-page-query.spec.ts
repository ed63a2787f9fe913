import { DomainError } from '../errors';
import { ScorePageQuery, SpanPageQuery, TraceReadQuery, readPageQuery } from './trace-page-query';

describe(readPageQuery.name, () => {
  it('reads sizes from query strings and JSON alike, and ignores other keys', () => {
    expect(readPageQuery(TraceReadQuery, { spansLimit: '25', spansCursor: 'abc', minSeq: 'x' })).toEqual({
      spansLimit: 25,
      spansCursor: 'abc',
    });
    expect(readPageQuery(SpanPageQuery, { limit: 1000, projectId: 'p' })).toEqual({ limit: 1000 });
    expect(readPageQuery(ScorePageQuery, {})).toEqual({});
  });

  it.each([
    [TraceReadQuery, { spansLimit: '0' }, 'spansLimit: must be an integer from 1 to 1000'],
    [TraceReadQuery, { spansLimit: '1001' }, 'spansLimit: must be an integer from 1 to 1000'],
    [TraceReadQuery, { spansLimit: '0x10' }, 'spansLimit: must be an integer from 1 to 1000'],
    [TraceReadQuery, { spansLimit: '1e2' }, 'spansLimit: must be an integer from 1 to 1000'],
    [TraceReadQuery, { spansLimit: ['1', '2'] }, 'spansLimit: must be an integer from 1 to 1000'],
    [SpanPageQuery, { limit: 2.5 }, 'limit: must be an integer from 1 to 1000'],
    [TraceReadQuery, { spansCursor: ['a', 'b'] }, 'spansCursor: must be a cursor string returned by this endpoint'],
    [ScorePageQuery, { cursor: 'x'.repeat(1_025) }, 'cursor: must be a cursor string returned by this endpoint'],
  ])('refuses %p %j as a 400 naming the parameter', (cls, plain, message) => {
    expect(() => readPageQuery(cls as new () => object, plain)).toThrow(new DomainError('VALIDATION_ERROR', message));
  });
});
