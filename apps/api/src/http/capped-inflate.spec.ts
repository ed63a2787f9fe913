import { Readable } from 'node:stream';
import { createGunzip, createInflate, deflateSync, gzipSync } from 'node:zlib';
import { CappedInflate } from './capped-inflate';

const LIMIT = 64 * 1024;

/** Feeds `input` in 1 KB pieces and reads like Fastify: every byte until more than the limit came, then none. */
async function run(input: Buffer, inflater = createGunzip()) {
  let inflated = 0;
  inflater.on('data', (chunk: Buffer) => (inflated += chunk.length));
  const capped = new CappedInflate(inflater, LIMIT);
  const pieces = Array.from({ length: Math.ceil(input.length / 1024) }, (_, i) => input.subarray(i * 1024, (i + 1) * 1024));
  Readable.from(pieces).pipe(capped);
  const received: Buffer[] = [];
  const onData = (chunk: Buffer) => {
    received.push(chunk);
    if (Buffer.concat(received).length > LIMIT) capped.off('data', onData);
  };
  capped.on('data', onData);
  const outcome = await new Promise<'end' | Error>((resolve) => {
    capped.on('end', () => resolve('end'));
    capped.on('error', resolve);
  });
  return { outcome, body: Buffer.concat(received), inflated, capped };
}

describe(CappedInflate.name, () => {
  it('passes a body within the limit through whole', async () => {
    const json = Buffer.from(JSON.stringify({ text: 'λ'.repeat(20_000) }));
    const { outcome, body, capped } = await run(gzipSync(json));
    expect(outcome).toBe('end');
    expect(body.equals(json)).toBe(true);
    expect(capped.overLimit).toBe(false);
  });

  it('inflates deflate as well', async () => {
    const json = Buffer.from('{"a":1}');
    const { body } = await run(deflateSync(json), createInflate());
    expect(body.toString()).toBe('{"a":1}');
  });

  it('stops inflating a bomb just past the limit, yet reads all its input and ends', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    const { outcome, body, inflated, capped } = await run(bomb);
    expect(outcome).toBe('end');
    expect(capped.overLimit).toBe(true);
    expect(body.length).toBeGreaterThan(LIMIT);
    // One zlib chunk (16 KB) past the limit at most, out of 50 MB.
    expect(inflated).toBeLessThanOrEqual(LIMIT + 16 * 1024);
  });

  it('fails on a truncated stream', async () => {
    const truncated = gzipSync(Buffer.from('{"a":1}')).subarray(0, 12);
    const { outcome } = await run(truncated);
    expect(outcome).toMatchObject({ code: 'Z_BUF_ERROR', message: 'unexpected end of file' });
  });

  it('fails on data that is not compressed', async () => {
    const { outcome } = await run(Buffer.from('{"plain":"json"}'));
    expect(outcome).toMatchObject({ code: 'Z_DATA_ERROR' });
  });
});
