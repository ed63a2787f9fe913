import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@app/config';
import { DomainError, LOGIN_THROTTLE, loginAccountKey } from '@app/domain';
import { LoginFailuresStore } from '@app/persistence';

const FORGET_EVERY_MS = 10 * 60_000;

/**
 * Failed logins per account across every replica (LOGIN_THROTTLE): an attempt on a locked
 * account is answered 429 RATE_LIMITED with Retry-After before its password is looked at.
 */
@Injectable()
export class LoginThrottle implements OnModuleInit, OnModuleDestroy {
  private forgetting: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: LoginFailuresStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async admit(email: string): Promise<void> {
    const decision = await this.store.admit(loginAccountKey(email), Date.now());
    if (decision.admitted) return;
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1_000));
    throw new DomainError(
      'RATE_LIMITED',
      `too many failed logins for this account; retry after ${seconds} second${seconds === 1 ? '' : 's'}`,
      { 'Retry-After': String(seconds) },
    );
  }

  succeeded(email: string): Promise<void> {
    return this.store.clear(loginAccountKey(email));
  }

  onModuleInit(): void {
    // Rows of accounts nobody guesses at any more would otherwise stay for good.
    this.forgetting = setInterval(() => {
      this.store
        .forgetBefore(Date.now(), LOGIN_THROTTLE.windowMs)
        .catch((err: unknown) => this.logger.warn({ err }, 'forgetting old failed logins failed; next try later'));
    }, FORGET_EVERY_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.forgetting);
  }
}
