import { NotFoundException } from '@nestjs/common';
import { MAX_PATH_SEGMENT_LENGTH } from '@app/domain';
import { noRouteResponse } from './protocol-errors';

describe(noRouteResponse.name, () => {
  const nestNotFound = (method: string, url: string) => [new NotFoundException(`Cannot ${method} ${url}`), { method, url }] as const;

  it('answers a request no route takes 404 naming the method, not the URL', () => {
    expect(noRouteResponse(...nestNotFound('GET', '/api/v1/nope?api_key=sl_secret'))).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: 'no route answers GET on this path',
      headers: {},
    });
  });

  it('answers 414 when a path segment is over the limit, however long the query', () => {
    expect(noRouteResponse(...nestNotFound('GET', `/api/v1/traces/${'a'.repeat(MAX_PATH_SEGMENT_LENGTH + 1)}`))).toMatchObject({
      status: 414,
      code: 'VALIDATION_ERROR',
    });
    expect(noRouteResponse(...nestNotFound('GET', `/api/v1/nope?q=${'a'.repeat(MAX_PATH_SEGMENT_LENGTH + 1)}`))).toMatchObject({
      status: 404,
    });
  });

  it('leaves every other error alone, a 404 a route throws included', () => {
    expect(noRouteResponse(new NotFoundException('trace not found'), { method: 'GET', url: '/api/v1/traces/x' })).toBeNull();
    expect(noRouteResponse(new Error('Cannot GET /x'), { method: 'GET', url: '/x' })).toBeNull();
  });
});
