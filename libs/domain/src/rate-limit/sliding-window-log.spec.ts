import fc from 'fast-check';
import { SlidingWindowLog } from './sliding-window-log';

/** The rule stated directly: allowed iff fewer than `limit` accepted requests in the last window. */
function reference(arrivals: number[], limit: number, windowMs: number): boolean[] {
  const accepted: number[] = [];
  return arrivals.map((t) => {
    const inWindow = accepted.filter((a) => t - a < windowMs).length;
    if (inWindow >= limit) return false;
    accepted.push(t);
    return true;
  });
}

describe(SlidingWindowLog.name, () => {
  it('lets exactly the first `limit` requests of a burst through', () => {
    const log = new SlidingWindowLog();
    const decisions = Array.from({ length: 150 }, (_, i) => log.hit(1_000 + i, 100, 1_000).allowed);
    expect(decisions.filter(Boolean)).toHaveLength(100);
    expect(decisions.slice(0, 100).every(Boolean)).toBe(true);
  });

  it('answers a peek as the next hit would, without counting it', () => {
    const log = new SlidingWindowLog();
    expect(log.peek(0, 2, 1_000)).toEqual({ allowed: true, count: 0, resetAtMs: 0 });
    log.hit(0, 2, 1_000);
    log.hit(400, 2, 1_000);
    expect(log.peek(999, 2, 1_000)).toEqual({ allowed: false, count: 2, resetAtMs: 1_000 });
    expect(log.peek(999, 2, 1_000)).toEqual(log.hit(999, 2, 1_000));
    expect(log.peek(1_000, 2, 1_000)).toEqual({ allowed: true, count: 1, resetAtMs: 1_400 });
    expect(log.hit(1_000, 2, 1_000)).toEqual({ allowed: true, count: 2, resetAtMs: 1_400 });
  });

  it('does not count refused requests, and lets one in as soon as the oldest leaves', () => {
    const log = new SlidingWindowLog();
    expect(log.hit(0, 2, 1_000)).toEqual({ allowed: true, count: 1, resetAtMs: 1_000 });
    expect(log.hit(400, 2, 1_000)).toEqual({ allowed: true, count: 2, resetAtMs: 1_000 });
    expect(log.hit(999, 2, 1_000)).toEqual({ allowed: false, count: 2, resetAtMs: 1_000 });
    expect(log.hit(1_000, 2, 1_000)).toEqual({ allowed: true, count: 2, resetAtMs: 1_400 });
    expect(log.hit(1_001, 2, 1_000).allowed).toBe(false);
  });

  it('is a rolling window, not a fixed one: no double burst across a boundary', () => {
    const log = new SlidingWindowLog();
    for (let i = 0; i < 10; i++) expect(log.hit(990 + i, 10, 1_000).allowed).toBe(true);
    expect(log.hit(1_005, 10, 1_000).allowed).toBe(false);
  });

  it('agrees with the rule on any log of arrivals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 400 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 1_000 }),
        (raw, limit, windowMs) => {
          const arrivals = [...raw].sort((a, b) => a - b);
          const log = new SlidingWindowLog();
          expect(arrivals.map((t) => log.hit(t, limit, windowMs).allowed)).toEqual(reference(arrivals, limit, windowMs));
        },
      ),
    );
  });

  it('is idle once every accepted request has left the window', () => {
    const log = new SlidingWindowLog();
    log.hit(0, 5, 1_000);
    expect(log.isIdle(999, 1_000)).toBe(false);
    expect(log.isIdle(1_000, 1_000)).toBe(true);
  });
});
