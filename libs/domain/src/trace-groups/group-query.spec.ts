import { encodeCursor } from '../reads/cursor';
import { readGroupId, validateSessionListQuery, validateTracePageQuery, validateUserListQuery } from './group-query';

describe(validateSessionListQuery.name, () => {
  it('reads REST query text and RPC JSON alike, with the trace list’s page size', () => {
    expect(validateSessionListQuery({})).toEqual({ limit: 50 });
    expect(
      validateSessionListQuery({ limit: '7', id: 'AbC', userId: 'u1', environment: 'prod', fromTimestamp: '2026-01-01T00:00:00+01:00' }),
    ).toEqual({
      limit: 7,
      idContains: 'AbC',
      userId: 'u1',
      environment: 'prod',
      from: '2025-12-31T23:00:00.000Z',
    });
    expect(validateSessionListQuery({ limit: 100 }).limit).toBe(100);
  });

  it.each([
    [{ limit: '0' }, 'limit: must be an integer from 1 to 100'],
    [{ limit: 101 }, 'limit: must be an integer from 1 to 100'],
    [{ limit: '5x' }, 'limit: must be an integer from 1 to 100'],
    [{ userId: ['a', 'b'] }, 'userId: must be a string'],
    [{ id: 'a\u0000' }, 'id: must be a string'],
    [{ fromTimestamp: 'yesterday' }, 'fromTimestamp: must be an ISO 8601 timestamp'],
    [{ fromTimestamp: '2026-01-02T00:00:00Z', toTimestamp: '2026-01-01T00:00:00Z' }, 'toTimestamp: must not be before fromTimestamp'],
    [{ cursor: 'nope' }, 'cursor: not a cursor returned by this endpoint'],
    [{ cursor: encodeCursor(['2026-02-30T00:00:00.000000Z', 's']) }, 'cursor: not a cursor'],
    [{ cursor: encodeCursor(['0000-01-01T00:00:00.000000Z', 's']) }, 'cursor: not a cursor'],
    [{ cursor: encodeCursor(['2026-01-01T00:00:00.000000Z', 'a\u0000']) }, 'cursor: not a cursor'],
  ])('refuses %j naming the field', (query, message) => {
    expect(() => validateSessionListQuery(query)).toThrow(message);
  });

  it('takes back the cursor it wrote', () => {
    const cursor = encodeCursor(['2026-01-01T00:00:00.123456Z', 'session 1']);
    expect(validateSessionListQuery({ cursor }).after).toEqual(['2026-01-01T00:00:00.123456Z', 'session 1']);
  });
});

describe(validateUserListQuery.name, () => {
  it('has no user filter of its own', () => {
    expect(validateUserListQuery({ userId: 'ignored', id: 'x' })).toEqual({ limit: 50, idContains: 'x' });
  });
});

describe(validateTracePageQuery.name, () => {
  it('takes a trace cursor, whose key is a trace id', () => {
    const at = '2026-01-01T00:00:00.000001Z';
    const id = '0b9d0c35-5cd1-4c39-9a2b-9b4a8e0e6f10';
    expect(validateTracePageQuery({ cursor: encodeCursor([at, id]), limit: '2' })).toEqual({ limit: 2, after: [at, id] });
    expect(() => validateTracePageQuery({ cursor: encodeCursor([at, 'not-a-uuid']) })).toThrow('cursor: not a cursor');
  });
});

describe(readGroupId.name, () => {
  it('refuses what Postgres cannot compare, naming the field', () => {
    expect(readGroupId('s-1', 'id')).toBe('s-1');
    expect(() => readGroupId('', 'id')).toThrow('id: must be a non-empty string');
    expect(() => readGroupId('a\ud800', 'id')).toThrow('id: must be a non-empty string');
  });
});
