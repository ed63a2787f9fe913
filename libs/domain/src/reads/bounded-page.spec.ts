import fc from 'fast-check';
import { boundedPage } from './bounded-page';

const rows = (...bytes: number[]) => bytes.map((b, i) => ({ i, bytes: b }));

describe(boundedPage.name, () => {
  it('takes up to the limit and says more follow when a candidate is left', () => {
    expect(boundedPage(rows(1, 1, 1), { limit: 2, budgetBytes: 100 })).toEqual({ rows: rows(1, 1), hasMore: true });
    expect(boundedPage(rows(1, 1), { limit: 2, budgetBytes: 100 })).toEqual({ rows: rows(1, 1), hasMore: false });
    expect(boundedPage([], { limit: 2, budgetBytes: 100 })).toEqual({ rows: [], hasMore: false });
  });

  it('ends before the row that would pass the byte budget', () => {
    expect(boundedPage(rows(40, 60, 1), { limit: 10, budgetBytes: 100 })).toEqual({ rows: rows(40, 60), hasMore: true });
    expect(boundedPage(rows(40, 61, 1), { limit: 10, budgetBytes: 100 }).rows).toEqual(rows(40));
  });

  it('always shows the first row, even one larger than the budget', () => {
    expect(boundedPage(rows(500, 1), { limit: 10, budgetBytes: 100 })).toEqual({ rows: rows(500), hasMore: true });
  });

  it('is a prefix within both bounds, and pages through every row exactly once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 300 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 400 }),
        (sizes, limit, budgetBytes) => {
          const all = rows(...sizes);
          const seen: number[] = [];
          let rest = all;
          while (rest.length) {
            const page = boundedPage(rest.slice(0, limit + 1), { limit, budgetBytes });
            expect(page.rows.length).toBeGreaterThan(0);
            expect(page.rows.length).toBeLessThanOrEqual(limit);
            if (page.rows.length > 1) expect(page.rows.reduce((n, r) => n + r.bytes, 0)).toBeLessThanOrEqual(budgetBytes);
            expect(page.hasMore).toBe(page.rows.length < rest.length);
            seen.push(...page.rows.map((r) => r.i));
            rest = rest.slice(page.rows.length);
          }
          expect(seen).toEqual(all.map((r) => r.i));
        },
      ),
    );
  });
});
