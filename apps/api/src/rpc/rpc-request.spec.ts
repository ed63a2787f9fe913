import { toRpcRequest } from './rpc-request';

const incoming = (over: { url?: string; headers?: Record<string, string>; body?: string }) => ({
  url: over.url ?? '/api/trpc/project.list',
  headers: over.headers ?? {},
  body: over.body === undefined ? undefined : Buffer.from(over.body),
});

describe(toRpcRequest.name, () => {
  it.each([
    ['a GET input in ?input=', { url: '/api/trpc/project.list?input=%7B%22orgId%22%3A%22o%22%7D' }, '{"orgId":"o"}'],
    ['a JSON body', { body: '{"orgId":"o"}', headers: { 'content-type': 'application/json; charset=utf-8' } }, '{"orgId":"o"}'],
    ['a body without a content type', { body: '{"orgId":"o"}' }, '{"orgId":"o"}'],
    ['a body over ?input=', { url: '/api/trpc/project.list?input=%7B%7D', body: '{"orgId":"o"}' }, '{"orgId":"o"}'],
    ['no input at all', {}, ''],
    ['an empty body with a text content type', { body: '', headers: { 'content-type': 'text/plain' } }, ''],
  ])('hands tRPC a JSON POST carrying %s', async (_, given, expectedBody) => {
    const { request, error } = toRpcRequest(incoming(given));
    expect(error).toBeNull();
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(await request.text()).toBe(expectedBody);
  });

  it('keeps the path and query, so batching (?batch=1) still works', () => {
    const { request } = toRpcRequest(incoming({ url: '/api/trpc/user.me,organization.list?batch=1&input=%7B%7D' }));
    const url = new URL(request.url);
    expect(url.pathname).toBe('/api/trpc/user.me,organization.list');
    expect(url.searchParams.get('batch')).toBe('1');
  });

  it('forwards the headers that choose the answer format, and no others', () => {
    const { request } = toRpcRequest(
      incoming({ headers: { 'trpc-accept': 'application/jsonl', authorization: 'Bearer t', cookie: 'c=1' } }),
    );
    expect(request.headers.get('trpc-accept')).toBe('application/jsonl');
    expect(request.headers.get('authorization')).toBeNull();
    expect(request.headers.get('cookie')).toBeNull();
  });

  it.each([
    ['a body that is not JSON', { body: '{nope' }, 'BAD_REQUEST', /not valid JSON/],
    ['a prototype-polluting key', { body: '{"__proto__":{"admin":true}}' }, 'BAD_REQUEST', /prototype/],
    ['?input= that is not JSON', { url: '/api/trpc/x?input=%7Bnope' }, 'BAD_REQUEST', /not valid JSON/],
    [
      'a body of another media type',
      { body: 'orgId=o', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      'UNSUPPORTED_MEDIA_TYPE',
      /application\/json/,
    ],
  ])('reports %s as a tRPC error, with no input passed on', async (_, given, code, message) => {
    const { request, error } = toRpcRequest(incoming(given));
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(await request.text()).toBe('');
  });
});
