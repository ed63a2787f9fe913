import { redeliveryDelayMs } from './consumer';

describe(redeliveryDelayMs.name, () => {
  it('backs off exponentially from 1 s and caps at 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map(redeliveryDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });
});
