import { once } from 'node:events';
import zlib from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from '@app/domain';
import { answerErrorsLikeTheApp } from './testing/bare-fastify-errors';
import { registerJsonParser } from './json-body-parser';
import { registerRequestDecompression } from './request-decompression';

// A stand-in factory, so a test can count what the real gunzip inflates.
jest.mock('node:zlib', () => {
  const actual = jest.requireActual<typeof import('node:zlib')>('node:zlib');
  return { ...actual, createGunzip: jest.fn(actual.createGunzip) };
});

/** The app's body pipeline (decompression, limit, JSON parser, error shape) on a bare Fastify with an echo route. */
async function echoServer(): Promise<FastifyInstance> {
  const fastify = Fastify({ bodyLimit: MAX_BODY_BYTES });
  registerJsonParser(fastify);
  answerErrorsLikeTheApp(fastify, pino({ level: 'silent' }));
  await registerRequestDecompression(fastify);
  fastify.post('/echo', async (req) => ({ body: req.body, rawBytes: req.rawBody?.length }));
  await fastify.ready();
  return fastify;
}

describe(registerRequestDecompression.name, () => {
  let fastify: FastifyInstance;

  const post = async (payload: Buffer | string, headers: Record<string, string> = {}) => {
    const res = await fastify.inject({
      method: 'POST',
      url: '/echo',
      payload,
      headers: { 'content-type': 'application/json', ...headers },
    });
    return { status: res.statusCode, body: res.json() as any, headers: res.headers };
  };

  beforeAll(async () => {
    fastify = await echoServer();
  });

  afterAll(() => fastify.close());

  it.each([
    ['gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
  ])('inflates a %s body before the JSON parser', async (encoding, compress) => {
    const json = JSON.stringify({ text: 'λ'.repeat(1_000) });
    const res = await post(compress(json), { 'content-encoding': encoding });
    expect(res).toMatchObject({ status: 200, body: { body: { text: 'λ'.repeat(1_000) }, rawBytes: Buffer.byteLength(json) } });
  });

  it('takes identity and no encoding as they are', async () => {
    expect((await post('{"a":1}', { 'content-encoding': 'identity' })).body).toMatchObject({ body: { a: 1 } });
    expect((await post('{"a":1}')).body).toMatchObject({ body: { a: 1 } });
  });

  it('keeps prototype-poisoning and depth protection behind gzip', async () => {
    const proto = await post(zlib.gzipSync('{"__proto__":{"admin":true}}'), { 'content-encoding': 'gzip' });
    expect(proto).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } });
    const deep = await post(zlib.gzipSync('['.repeat(10_000) + ']'.repeat(10_000)), { 'content-encoding': 'gzip' });
    expect(deep).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', message: expect.stringContaining(`${MAX_JSON_DEPTH} levels`) } },
    });
  });

  it('applies the body limit to the inflated size', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(MAX_BODY_BYTES) });
    const res = await post(zlib.gzipSync(big), { 'content-encoding': 'gzip' });
    expect(res).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
  });

  it('answers a gzip bomb 413 having inflated little more than the limit', async () => {
    let inflated = 0;
    let inflaterClosed!: Promise<unknown>;
    const real = jest.requireActual<typeof import('node:zlib')>('node:zlib').createGunzip;
    jest.mocked(zlib.createGunzip).mockImplementationOnce((options) => {
      const inflater = real(options).on('data', (c: Buffer) => (inflated += c.length));
      inflaterClosed = once(inflater, 'close');
      return inflater;
    });
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, ' '));
    const res = await post(bomb, { 'content-encoding': 'gzip' });
    expect(res).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    // The inflater's end, whenever it comes: stopped just past the limit, not after 50 MB.
    await inflaterClosed;
    expect(inflated).toBeLessThanOrEqual(MAX_BODY_BYTES + 64 * 1024);
  });

  it('answers 400 for truncated or corrupt compressed data', async () => {
    const truncated = zlib.gzipSync('{"resourceSpans":[]}').subarray(0, 15);
    expect(await post(truncated, { 'content-encoding': 'gzip' })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', message: 'body is not valid gzip data: unexpected end of file' } },
    });
    expect(await post('{"not":"gzip"}', { 'content-encoding': 'gzip' })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR' } },
    });
  });

  it('answers 415 for an encoding it does not take', async () => {
    const res = await post(zlib.brotliCompressSync('{}'), { 'content-encoding': 'br' });
    expect(res).toMatchObject({
      status: 415,
      body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('Content-Encoding br') } },
    });
  });

  it('leaves responses uncompressed', async () => {
    const res = await fastify.inject({
      method: 'POST',
      url: '/echo',
      payload: { text: 'y'.repeat(10_000) },
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.headers['content-encoding']).toBeUndefined();
  });
});
