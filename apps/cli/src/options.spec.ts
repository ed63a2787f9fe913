import { CliError } from './output';
import { sequenceOption, timestampOption, uuidOption } from './options';

describe('option parsers', () => {
  it('reads a sequence from 1, and refuses anything else naming the option', () => {
    expect(sequenceOption('--from-seq')('1')).toBe(1);
    expect(sequenceOption('--from-seq')('123456789012345')).toBe(123456789012345);
    for (const bad of ['0', '-1', '1.5', '1e3', '', 'x', '0x10', '1234567890123456']) {
      expect(() => sequenceOption('--from-seq')(bad)).toThrow(new CliError('--from-seq must be a stream sequence (a whole number from 1)'));
    }
  });

  it('reads an ISO 8601 instant with any offset as UTC, and refuses a non-date naming the option', () => {
    expect(timestampOption('--from')('2026-11-22T12:00:00+02:00').toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(timestampOption('--from')('2026-11-22T10:00:00Z').toISOString()).toBe('2026-11-22T10:00:00.000Z');
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '1732269600']) {
      expect(() => timestampOption('--from')(bad)).toThrow(new CliError('--from must be an ISO 8601 timestamp'));
    }
  });

  it('reads an id lower-cased, and refuses what is not one', () => {
    expect(uuidOption('--org', 'an organization')('AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE')).toBe('aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee');
    expect(() => uuidOption('--org', 'an organization')('acme')).toThrow(new CliError('--org must be an organization id (a UUID)'));
  });
});
