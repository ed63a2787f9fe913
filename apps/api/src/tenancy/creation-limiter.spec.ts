import { CREATION_RATE, DomainError } from '@app/domain';
import { CreationLimiter } from './creation-limiter';

describe(CreationLimiter.name, () => {
  const refusal = (take: () => void) => {
    try {
      take();
      return null;
    } catch (err) {
      return {
        code: (err as DomainError).code,
        retryAfter: (err as DomainError).headers['Retry-After'],
        message: (err as DomainError).message,
      };
    }
  };

  it('lets each user create its share per rolling minute, then answers 429 with the seconds until the oldest leaves', () => {
    const clock = { now: 1_000_000 };
    const limiter = new CreationLimiter(3, () => clock.now);
    for (let i = 0; i < 3; i++) {
      expect(refusal(() => limiter.take('a'))).toBeNull();
      clock.now += 10_000;
    }
    expect(refusal(() => limiter.take('a'))).toEqual({
      code: 'RATE_LIMIT_EXCEEDED',
      retryAfter: '30',
      message: 'a user may create at most 3 organizations, projects and API keys a minute; retry after 30 seconds',
    });
    expect(refusal(() => limiter.take('b'))).toBeNull();
    clock.now += 30_000;
    expect(refusal(() => limiter.take('a'))).toBeNull();
  });

  it('takes any number with 0', () => {
    const limiter = new CreationLimiter(0);
    for (let i = 0; i < CREATION_RATE.perWindow * 10; i++) limiter.take('a');
  });
});
