import { type Listed, appendPage, compareListed, refreshTop } from './live-list';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const row = (id: string, second: number, label = ''): Listed & { label: string } => ({ id, timestamp: at(second), label });
const ids = (rows: Listed[]) => rows.map((r) => r.id);

describe('live trace list', () => {
  it('orders like the API: newest first, then the greater id', () => {
    expect([row('a', 1), row('c', 2), row('b', 2)].sort(compareListed).map((r) => r.id)).toEqual(['c', 'b', 'a']);
  });

  it('puts traces that arrived on top and keeps the older pages the user loaded', () => {
    const shown = { rows: [row('t5', 5), row('t4', 4), row('t3', 3), row('t2', 2), row('t1', 1)], nextCursor: 'after-t1' };
    const page = { rows: [row('t7', 7), row('t6', 6), row('t5', 5, 'changed')], nextCursor: 'after-t5' };
    const next = refreshTop(shown, page);
    expect(ids(next.rows)).toEqual(['t7', 't6', 't5', 't4', 't3', 't2', 't1']);
    expect(next.rows[2]).toEqual(row('t5', 5, 'changed'));
    expect(next.nextCursor).toBe('after-t1');
  });

  it('takes the page as the whole list when it is the last one, so deleted traces leave', () => {
    const shown = { rows: [row('t2', 2), row('t1', 1)], nextCursor: null };
    expect(refreshTop(shown, { rows: [row('t3', 3), row('t1', 1)], nextCursor: null })).toEqual({
      rows: [row('t3', 3), row('t1', 1)],
      nextCursor: null,
    });
  });

  it('takes the page and its cursor when nothing older was loaded', () => {
    expect(refreshTop({ rows: [], nextCursor: null }, { rows: [row('t9', 9)], nextCursor: 'c' })).toEqual({
      rows: [row('t9', 9)],
      nextCursor: 'c',
    });
  });

  it('appends an older page without repeating a row already shown', () => {
    const next = appendPage(
      { rows: [row('t3', 3), row('t2', 2)], nextCursor: 'c1' },
      { rows: [row('t2', 2), row('t1', 1)], nextCursor: null },
    );
    expect(ids(next.rows)).toEqual(['t3', 't2', 't1']);
    expect(next.nextCursor).toBeNull();
  });
});
