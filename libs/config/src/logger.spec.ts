import { Writable } from 'node:stream';
import fc from 'fast-check';
import { QueryFailedError } from 'typeorm';
import { REDACTED, createLogger, loggableError, redactUrl } from './logger';

/** A logger at every level whose lines are kept, as the apps would write them to stdout. */
function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('test', 'trace', sink), output: () => lines.join('') };
}

const SECRET = 'Bearer sk-live-7f3a9c1e5b';

/** What TypeORM throws when pg refuses a write: the statement, its parameters and pg's own fields. */
function failedInsert(): QueryFailedError {
  const driverError = Object.assign(new Error('new row for relation "evaluators" violates check constraint "no_writes"'), {
    code: '23514',
    detail: `Failing row contains (1, {"Authorization": "${SECRET}"}).`,
    where: `JSON data, line 1: {"Authorization": "${SECRET}"`,
  });
  return new QueryFailedError('INSERT INTO evaluators (headers) VALUES ($1)', [JSON.stringify({ Authorization: SECRET })], driverError);
}

describe(loggableError.name, () => {
  it('keeps the type, message, code and stack of a failed statement, never its parameters nor what pg quotes', () => {
    const { logger, output } = capturedLogger();
    logger.error({ err: failedInsert() }, 'unexpected error');
    logger.error({ err: new Error('rpc procedure failed', { cause: failedInsert() }) }, 'wrapped');
    logger.error(failedInsert(), 'as the first argument');
    expect(output()).not.toContain('sk-live');
    const [line] = output().split('\n');
    expect(JSON.parse(line).err).toEqual({
      type: 'QueryFailedError',
      message: expect.stringMatching(/violates check constraint/),
      code: '23514',
      stack: expect.any(String),
    });
  });

  it('follows causes a few levels deep and describes values that are not errors without printing them', () => {
    expect(loggableError(new Error('outer', { cause: new TypeError('inner') }))).toMatchObject({
      message: 'outer',
      cause: { type: 'TypeError', message: 'inner' },
    });
    expect(loggableError({ password: SECRET })).toBe('non-error value of type object');
    expect(loggableError('already a string')).toBe('already a string');
  });
});

describe(redactUrl.name, () => {
  it.each([
    ['/api/v1/traces?api_key=sl_abc&limit=5', `/api/v1/traces?api_key=${REDACTED}&limit=5`],
    ['/api/v1/traces?apiKey=sl_abc', `/api/v1/traces?apiKey=${REDACTED}`],
    ['/api/v1/traces?key=sl_abc&name=x', `/api/v1/traces?key=${REDACTED}&name=x`],
    ['/x?access_token=a&refresh_token=b&token=c', `/x?access_token=${REDACTED}&refresh_token=${REDACTED}&token=${REDACTED}`],
    ['/x?password=a&client_secret=b&Authorization=c', `/x?password=${REDACTED}&client_secret=${REDACTED}&Authorization=${REDACTED}`],
    ['/api/trpc/evaluator.create?input=%7B%22headers%22%3A%7B%7D%7D', `/api/trpc/evaluator.create?input=${REDACTED}`],
    ['/x?api%5Fkey=a', `/x?api%5Fkey=${REDACTED}`],
    ['/x?%E0%A4%A=a', `/x?%E0%A4%A=${REDACTED}`],
    ['/api/v1/traces?name=a&tags=b&userId=c', '/api/v1/traces?name=a&tags=b&userId=c'],
    ['/api/v1/health', '/api/v1/health'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('never lets the value of a credential-looking parameter through, and keeps every other parameter as sent', () => {
    const credentialName = fc
      .tuple(
        fc.constantFrom('key', 'api_key', 'apiKey', 'token', 'access_token', 'password', 'secret', 'auth'),
        fc.string({ maxLength: 3 }).filter((s) => !/[=&?#%]/.test(s)),
      )
      .map(([name, suffix]) => name.replace(/./g, (c, i) => (i % 2 ? c.toUpperCase() : c)) + suffix);
    const secret = fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/);
    const plain = fc.tuple(fc.constantFrom('name', 'tags', 'limit', 'cursor', 'userId'), fc.stringMatching(/^[a-z0-9]{0,10}$/));
    fc.assert(
      fc.property(credentialName, secret, fc.array(plain, { maxLength: 4 }), (name, value, others) => {
        const kept = others.map(([k, v]) => `${k}=${v}`);
        const out = redactUrl(`/api/v1/traces?${[...kept, `${encodeURIComponent(name)}=${value}`].join('&')}`) as string;
        expect(out).not.toContain(value);
        expect(out.startsWith(`/api/v1/traces?${kept.map((p) => `${p}&`).join('')}`)).toBe(true);
      }),
    );
  });
});

describe(createLogger.name, () => {
  it('redacts credentials in the request log and in any field named like one', () => {
    const { logger, output } = capturedLogger();
    logger.info({ url: '/api/v1/traces?api_key=sl_secretkey', status: 401 }, 'request');
    logger.info(
      {
        password: 'hunter2-secret',
        body: { refresh_token: 'slr_secret', apiKey: 'sl_secret2' },
        headers: { authorization: 'Bearer sl_secret3' },
      },
      'fields',
    );
    expect(output()).not.toMatch(/secret/);
    expect(output()).toContain(`api_key=${REDACTED}`);
  });
});
