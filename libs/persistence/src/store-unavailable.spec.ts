import { QueryFailedError } from 'typeorm';
import { isStoreUnavailable } from './store-unavailable';

/** An error shaped like pg's: a message and, for server errors, the SQLSTATE as `code`. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe(isStoreUnavailable.name, () => {
  it.each([
    [
      'nothing listens (server down)',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111 }),
    ],
    ['fast shutdown ends the session', pgError('terminating connection due to administrator command', '57P01')],
    ['server shutting down or starting up', pgError('the database system is starting up', '57P03')],
    ['connection exception class', pgError('connection failure', '08006')],
    ['too many connections', pgError('sorry, too many clients already', '53300')],
    ['socket closed under a query', pgError('Connection terminated unexpectedly')],
    ['pool could not connect in time', pgError('timeout exceeded when trying to connect')],
    ['wrapped by TypeORM', new QueryFailedError('SELECT 1', [], pgError('terminating connection due to administrator command', '57P01'))],
    [
      'wrapped as a cause',
      new Error('lookup failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }),
    ],
  ])('is true when %s', (_, err) => {
    expect(isStoreUnavailable(err)).toBe(true);
  });

  it.each([
    ['a syntax error', new QueryFailedError('SELEC 1', [], pgError('syntax error at or near "SELEC"', '42601'))],
    ['a constraint violation', pgError('duplicate key value violates unique constraint', '23505')],
    ['invalid input', pgError('invalid input syntax for type uuid', '22P02')],
    ['a programming error', new TypeError('boom')],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('is false for %s', (_, err) => {
    expect(isStoreUnavailable(err)).toBe(false);
  });
});
