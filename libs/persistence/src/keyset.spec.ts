import { type KeysetOrder, keyset } from './keyset';

const TIME_ID: KeysetOrder = {
  columns: [
    { sql: 't.ts', type: 'timestamptz' },
    { sql: 't.id', type: 'uuid' },
  ],
};

describe(keyset.name, () => {
  it('pages from the start without a position: no condition, the order and the limit as parameters', () => {
    const params: unknown[] = ['p'];
    expect(keyset({ ...TIME_ID, descending: true }, undefined, 51, params)).toEqual({
      after: 'true',
      orderBy: 't.ts DESC, t.id DESC',
      limit: 'LIMIT $2',
    });
    expect(params).toEqual(['p', 51]);
  });

  it('compares the row of order columns with the position, each value cast to its column type', () => {
    const params: unknown[] = ['p'];
    expect(keyset({ ...TIME_ID, descending: true }, ['2026-01-01 00:00:00+00', 'id-1'], 10, params)).toEqual({
      after: '(t.ts, t.id) < ($2::timestamptz, $3::uuid)',
      orderBy: 't.ts DESC, t.id DESC',
      limit: 'LIMIT $4',
    });
    expect(params).toEqual(['p', '2026-01-01 00:00:00+00', 'id-1', 10]);
    expect(keyset({ columns: [{ sql: 'name', type: 'text' }] }, ['b'], 3, []).after).toBe('(name) > ($1::text)');
  });

  it('with a first column sorted null last: past a value comes every null, past a null only the nulls after it', () => {
    const order = { ...TIME_ID, nullsLast: true };
    expect(keyset(order, ['2026-01-01 00:00:00+00', 'id-1'], 10, [])).toEqual({
      after: '((t.ts, t.id) > ($1::timestamptz, $2::uuid) OR t.ts IS NULL)',
      orderBy: 't.ts NULLS LAST, t.id',
      limit: 'LIMIT $3',
    });
    const params: unknown[] = [];
    expect(keyset(order, [null, 'id-1'], 10, params).after).toBe('(t.ts IS NULL AND (t.id) > ($1::uuid))');
    expect(params).toEqual(['id-1', 10]);
  });
});
