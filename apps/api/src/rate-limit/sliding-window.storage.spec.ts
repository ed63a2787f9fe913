import { SlidingWindowStorage } from './sliding-window.storage';

describe(SlidingWindowStorage.name, () => {
  let now = 1_700_000_000_000;
  const storage = new SlidingWindowStorage(() => now);

  it('keeps independent windows per key and reports the exact reset time', async () => {
    const first = await storage.increment('a', 1_000, 2);
    expect(first).toEqual({ totalHits: 1, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0, resetAtMs: now + 1_000 });
    now += 250;
    expect(await storage.increment('a', 1_000, 2)).toMatchObject({ totalHits: 2, isBlocked: false, resetAtMs: now - 250 + 1_000 });
    expect(await storage.increment('a', 1_000, 2)).toMatchObject({ totalHits: 3, isBlocked: true, timeToBlockExpire: 0.75 });
    expect(await storage.increment('b', 1_000, 2)).toMatchObject({ totalHits: 1, isBlocked: false });
    now += 750;
    expect(await storage.increment('a', 1_000, 2)).toMatchObject({ totalHits: 2, isBlocked: false });
  });
});
