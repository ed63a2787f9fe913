import { hash } from 'node:crypto';
import { LOGIN_THROTTLE } from './limits';

/** What is kept of one account's recent failed logins. */
export interface LoginFailures {
  failures: number;
  lastFailureAtMs: number;
  /** No attempt is checked before this time; null while under the free failures. */
  lockedUntilMs: number | null;
}

export type LoginAdmission = { admitted: true; next: LoginFailures } | { admitted: false; retryAfterMs: number };

/**
 * Whether a login attempt on an account may have its password checked. An admitted attempt
 * is counted as a failure before the check (a success then clears the account), so guesses
 * sent all at once are counted as they arrive, not after their checks, and cannot all slip
 * in before the lock. A refused attempt changes nothing: a guesser cannot keep the real user
 * locked out longer by guessing faster. The clock is passed in.
 */
export function admitLoginAttempt(
  state: LoginFailures | null,
  nowMs: number,
  rule: typeof LOGIN_THROTTLE = LOGIN_THROTTLE,
): LoginAdmission {
  if (state?.lockedUntilMs != null && state.lockedUntilMs > nowMs) return { admitted: false, retryAfterMs: state.lockedUntilMs - nowMs };
  const recent = state && nowMs - state.lastFailureAtMs < rule.windowMs ? state.failures : 0;
  const failures = recent + 1;
  const beyond = failures - rule.freeFailures;
  const lockedUntilMs = beyond >= 0 ? nowMs + Math.min(rule.firstLockMs * 2 ** beyond, rule.maxLockMs) : null;
  return { admitted: true, next: { failures, lastFailureAtMs: nowMs, lockedUntilMs } };
}

/**
 * The key failed logins are counted under: a hash of the e-mail as the login looks it up
 * (case-insensitively), for unknown e-mails too, so that being locked says nothing about
 * whether an account exists, and no typed e-mail (or password typed into it) is stored.
 */
export const loginAccountKey = (email: string): string => hash('sha256', email.toLowerCase(), 'hex');
