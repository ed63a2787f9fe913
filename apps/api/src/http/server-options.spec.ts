import Fastify from 'fastify';
import type { TrustProxy } from '@app/config';
import { MAX_NATIVE_ID_LENGTH, MAX_PATH_SEGMENT_LENGTH } from '@app/domain';
import { httpServerOptions } from './server-options';

/** The client address the API would count a request against, as Fastify works it out with our options. */
async function clientIp(trustProxy: TrustProxy, remoteAddress: string, forwardedFor?: string): Promise<string> {
  const app = Fastify(httpServerOptions({ trustProxy }));
  app.get('/ip', async (req) => req.ip);
  try {
    const res = await app.inject({
      method: 'GET',
      url: '/ip',
      remoteAddress,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    });
    return res.body;
  } finally {
    await app.close();
  }
}

describe(httpServerOptions.name, () => {
  it('believes no X-Forwarded-For by default: a client cannot choose its own address', async () => {
    expect(await clientIp(false, '198.51.100.7', '203.0.113.9')).toBe('198.51.100.7');
  });

  it('believes it from the listed proxies only, walking back through each trusted one', async () => {
    expect(await clientIp(['127.0.0.1'], '127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(await clientIp(['127.0.0.1'], '198.51.100.7', '203.0.113.9')).toBe('198.51.100.7');
    expect(await clientIp(['10.0.0.0/8'], '10.0.0.5', '203.0.113.9, 10.1.2.3')).toBe('203.0.113.9');
    expect(await clientIp(['10.0.0.0/8'], '10.0.0.5', '203.0.113.9, 198.51.100.1')).toBe('198.51.100.1');
  });

  it('with a hop count, takes the address that many proxies back, whatever the client put before it', async () => {
    expect(await clientIp(1, '10.0.0.5', 'forged, 203.0.113.9')).toBe('203.0.113.9');
    expect(await clientIp(2, '10.0.0.5', 'forged, 203.0.113.9, 10.0.0.4')).toBe('203.0.113.9');
    expect(await clientIp(1, '10.0.0.5')).toBe('10.0.0.5');
  });

  it('takes a path segment as long as a native id percent-encoded, and answers a longer one 414 and a malformed one 400 in SPEC 7.2 body, without the URL', async () => {
    const app = Fastify(httpServerOptions({ trustProxy: false }));
    app.get('/traces/:id', async () => 'found');
    try {
      const long = await app.inject({ method: 'GET', url: `/traces/secret-${'a'.repeat(MAX_PATH_SEGMENT_LENGTH)}` });
      expect((await app.inject({ method: 'GET', url: `/traces/${encodeURIComponent('é'.repeat(MAX_NATIVE_ID_LENGTH))}` })).body).toBe(
        'found',
      );
      expect({ status: long.statusCode, body: long.json() }).toEqual({
        status: 414,
        body: { error: { code: 'VALIDATION_ERROR', message: 'the URL is too long: a path segment is longer than the server takes' } },
      });
      const malformed = await app.inject({ method: 'GET', url: '/traces/secret-%zz' });
      expect({ status: malformed.statusCode, body: malformed.json() }).toEqual({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^the URL is not valid/) } },
      });
      expect(long.body + malformed.body).not.toContain('secret');
    } finally {
      await app.close();
    }
  });
});
