import fc from 'fast-check';
import { SharedWindowStorage } from './shared-window.storage';
import { type SlidingWindowRecord, SlidingWindowStorage } from './sliding-window.storage';
import { CounterLeaseStore } from './testing/counter-lease-store';
import { type LeaseStore, WindowLeases } from './window-leases';

const replica = (store: LeaseStore, clock: () => number) =>
  new SharedWindowStorage(new SlidingWindowStorage(clock), new WindowLeases(store, 1_000, () => undefined, clock), clock);

/** What the guard shows of a record: the decision and the headers. */
const shown = (r: SlidingWindowRecord, limit = 10) => ({
  blocked: r.isBlocked,
  remaining: Math.max(0, limit - r.totalHits),
  reset: r.resetAtMs,
});

describe(SharedWindowStorage.name, () => {
  it('answers alone exactly as the rolling window does: the same decisions and headers for any arrival times', async () => {
    await fc.assert(
      // Limits of one token per lease and of several; arrivals about as fast as the limit, in bursts and spells.
      fc.asyncProperty(fc.constantFrom(10, 100), fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 300 }), async (limit, gaps) => {
        let now = 1_700_000_000_000;
        const clock = () => now;
        const alone = new SlidingWindowStorage(clock);
        const shared = replica(new CounterLeaseStore(), clock);
        for (const gap of gaps) {
          now += gap % 4 === 0 ? 0 : (gap * 4) / limit;
          const [expected, actual] = [await alone.increment('key:1', 1_000, limit), await shared.increment('key:1', 1_000, limit)];
          expect(shown(actual, limit)).toEqual(shown(expected, limit));
        }
      }),
    );
  });

  it('lets a request in as soon as the rolling window has room, even after refusals in the same fixed second', async () => {
    let now = 1_700_000_000_900;
    const clock = () => now;
    const shared = replica(new CounterLeaseStore(), clock);
    for (let i = 0; i < 10; i++) expect((await shared.increment('key:1', 1_000, 10)).isBlocked).toBe(false);
    // The next second: refused while the burst fills the rolling window, which costs no token of that second.
    for (now = 1_700_000_001_000; now < 1_700_000_001_900; now += 50)
      expect((await shared.increment('key:1', 1_000, 10)).isBlocked).toBe(true);
    now = 1_700_000_001_900;
    for (let i = 0; i < 10; i++) expect((await shared.increment('key:1', 1_000, 10)).isBlocked).toBe(false);
  });

  it('refuses across replicas once the fixed second is spent, with no requests left and the reset at its end', async () => {
    const now = 1_700_000_000_250;
    const store = new CounterLeaseStore();
    const [a, b] = [replica(store, () => now), replica(store, () => now)];
    for (let i = 0; i < 10; i++) expect((await a.increment('key:1', 1_000, 10)).isBlocked).toBe(false);
    const refused = await b.increment('key:1', 1_000, 10);
    expect(shown(refused)).toEqual({ blocked: true, remaining: 0, reset: 1_700_000_001_000 });
  });
});
