import { ApiClient, describeApiError } from './api-client';

describe(describeApiError.name, () => {
  it.each([
    ['REST', 404, { error: { code: 'NOT_FOUND', message: 'trace x not found' } }, 'trace x not found (404 NOT_FOUND)'],
    [
      'auth',
      401,
      { data: null, error: { code: 'UNAUTHORIZED', message: 'invalid email or password' } },
      'invalid email or password (401 UNAUTHORIZED)',
    ],
    [
      'tRPC',
      403,
      { error: { message: 'not a member', code: -32003, data: { code: 'FORBIDDEN', httpStatus: 403 } } },
      'not a member (403 FORBIDDEN)',
    ],
    ['multi-line', 400, { error: { code: 'VALIDATION_ERROR', message: 'a\nb' } }, 'a b (400 VALIDATION_ERROR)'],
    ['not an error body', 502, '<html>bad gateway</html>', 'the API answered 502'],
    ['no body', 500, null, 'the API answered 500'],
  ])('reads a %s error as one line', (_, status, body, expected) => {
    expect(describeApiError(status, body)).toBe(expected);
  });
});

describe(ApiClient.name, () => {
  it('keeps the base URL without a trailing slash', () => {
    expect(new ApiClient('http://127.0.0.1:3000/').baseUrl).toBe('http://127.0.0.1:3000');
  });

  it.each(['not a url', 'ftp://example.com'])('refuses %p as --api', (url) => {
    expect(() => new ApiClient(url)).toThrow(/--api/);
  });
});
