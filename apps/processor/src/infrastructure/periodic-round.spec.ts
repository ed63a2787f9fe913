import { PeriodicRound } from './periodic-round';

describe(PeriodicRound.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('skips a tick while a round runs, and its stop waits for that round', async () => {
    let started = 0;
    let finish!: () => void;
    const rounds = new PeriodicRound(() => {
      started++;
      return new Promise<void>((r) => (finish = r));
    });
    rounds.start(1_000);
    await jest.advanceTimersByTimeAsync(3_500);
    expect(started).toBe(1);

    let stopped = false;
    const stopping = rounds.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(started).toBe(1);
  });

  it('starts the next round once the previous one has ended', async () => {
    let started = 0;
    const rounds = new PeriodicRound(async () => {
      started++;
    });
    rounds.start(1_000);
    await jest.advanceTimersByTimeAsync(3_000);
    expect(started).toBe(3);
    await rounds.stop();
  });

  it('holds the first round back by its own delay, then keeps the interval', async () => {
    let started = 0;
    const rounds = new PeriodicRound(async () => {
      started++;
    });
    rounds.start(1_000, 5_000);
    await jest.advanceTimersByTimeAsync(4_999);
    expect(started).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(started).toBe(1);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(started).toBe(3);
    await rounds.stop();
  });
});
