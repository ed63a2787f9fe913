import { isUuidShaped, parseTimestamp } from '@app/domain';
import { CliError } from './output';

/** Parsers for commander options: each refuses a bad value with a message naming the option. */

/** An ISO 8601 instant (any offset) as a Date. */
export const timestampOption =
  (flag: string) =>
  (value: string): Date => {
    const ms = parseTimestamp(value);
    if (ms === null) throw new CliError(`${flag} must be an ISO 8601 timestamp`);
    return new Date(ms);
  };

/** A stream sequence: a whole number from 1. */
export const sequenceOption =
  (flag: string) =>
  (value: string): number => {
    const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
    if (!(n >= 1)) throw new CliError(`${flag} must be a stream sequence (a whole number from 1)`);
    return n;
  };

/** An organization's or project's id, lower-cased. */
export const uuidOption =
  (flag: string, what: string) =>
  (value: string): string => {
    if (!isUuidShaped(value)) throw new CliError(`${flag} must be ${what} id (a UUID)`);
    return value.toLowerCase();
  };
