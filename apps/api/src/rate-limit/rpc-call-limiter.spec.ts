import { DomainError } from '@app/domain';
import { RpcCallLimiter } from './rpc-call-limiter';
import { SlidingWindowStorage } from './sliding-window.storage';

describe(RpcCallLimiter.name, () => {
  it('refuses a session past its limit in the window with 429 and Retry-After, other sessions unaffected, and lets it in again once the window moves', async () => {
    let now = 1_700_000_000_000;
    const limiter = new RpcCallLimiter(new SlidingWindowStorage(() => now), { heavy: 3, wholeSpan: 1 });
    for (let i = 0; i < 3; i++) await limiter.take('a');
    const refused = await limiter.take('a').then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', headers: { 'Retry-After': '1' } });
    await expect(limiter.take('b')).resolves.toBeUndefined();
    now += 1_000;
    await expect(limiter.take('a')).resolves.toBeUndefined();
  });

  it('counts whole spans in a bucket of their own, with its own limit', async () => {
    const limiter = new RpcCallLimiter(new SlidingWindowStorage(() => 0), { heavy: 3, wholeSpan: 1 });
    await limiter.take('a', 'wholeSpan');
    await expect(limiter.take('a', 'wholeSpan')).rejects.toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringContaining('at most 1 whole spans (trace.span) per second'),
    });
    await expect(limiter.take('a')).resolves.toBeUndefined();
  });
});
