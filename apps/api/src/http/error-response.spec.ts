import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { DomainError } from '@app/domain';
import { errorBody, toErrorResponse } from './error-response';

describe(toErrorResponse.name, () => {
  it.each([
    [new DomainError('QUOTA_EXCEEDED', 'q'), 403, 'QUOTA_EXCEEDED'],
    [new BadRequestException(['limit must not be greater than 100']), 400, 'VALIDATION_ERROR'],
    [new NotFoundException('Cannot GET /nope'), 404, 'NOT_FOUND'],
    [Object.assign(new Error('too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }), 413, 'PAYLOAD_TOO_LARGE'],
    [Object.assign(new Error('bad type'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('maps %p to %i %s', (err, status, code) => {
    expect(toErrorResponse(err)).toMatchObject({ status, code });
  });

  it("looks through Nest's HttpException at the Fastify error it wraps", () => {
    const fastifyError = Object.assign(new Error('Unsupported Media Type'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 });
    expect(toErrorResponse(new HttpException(fastifyError.message, 415, { cause: fastifyError }))).toMatchObject({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: expect.stringContaining('JSON is required, protobuf is not supported'),
    });
  });

  it.each([
    ['refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [
      'session ended by a restart',
      new QueryFailedError(
        'SELECT 1',
        [],
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ],
  ])('answers 503 with Retry-After when Postgres is unavailable (%s), so clients retry instead of seeing a 500', (_, err) => {
    expect(toErrorResponse(err)).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('database'),
      headers: { 'Retry-After': '1' },
    });
  });

  it('leaves a failing query to the 500 path: retrying cannot fix it', () => {
    expect(toErrorResponse(new QueryFailedError('SELEC 1', [], Object.assign(new Error('syntax error'), { code: '42601' })))).toBeNull();
  });

  it('leaves unexpected errors to the 500 path', () => {
    expect(toErrorResponse(new TypeError('boom'))).toBeNull();
  });

  it('uses the data envelope on auth endpoints only', () => {
    expect(errorBody('/api/v1/auth/login', 'X', 'm')).toEqual({ data: null, error: { code: 'X', message: 'm' } });
    expect(errorBody('/api/v1/traces', 'X', 'm')).toEqual({ error: { code: 'X', message: 'm' } });
  });
});
