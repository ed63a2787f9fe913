import { Transform, type TransformCallback } from 'node:stream';
import type { Gunzip, Inflate } from 'node:zlib';

/**
 * A request-body decompressor that stops inflating once its output passes `limit` bytes
 * (BAD_INPUTS 9: 200 MiB of zeros gzip to ~200 KB). Fastify answers 413 as soon as it has
 * read more than its body limit, but stops listening without stopping the stream, so a plain
 * zlib stream would inflate the whole bomb afterwards. Past the limit this one stops zlib and
 * drops the rest of the compressed input, yet still reads it to the end and ends normally:
 * failing the stream instead would reset the connection before the client reads its 413.
 */
export class CappedInflate extends Transform {
  private produced = 0;

  constructor(
    private readonly inflater: Gunzip | Inflate,
    private readonly limit: number,
  ) {
    super();
    inflater.on('data', (chunk: Buffer) => this.passOn(chunk));
    // Past the limit the inflater is stopped on purpose; only errors before that are the body's.
    inflater.on('error', (err) => {
      if (!this.overLimit) this.destroy(err);
    });
  }

  /** Whether the output went past the limit (and inflating stopped). */
  get overLimit(): boolean {
    return this.produced > this.limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.overLimit) return done();
    this.inflater.write(chunk, () => done());
  }

  override _flush(done: TransformCallback): void {
    if (this.overLimit) return done();
    // 'close' follows the last 'data' (and also a stop past the limit or an error).
    this.inflater.once('close', () => done());
    this.inflater.end();
  }

  private passOn(chunk: Buffer): void {
    if (this.overLimit) return;
    this.produced += chunk.length;
    // The chunk that crosses the limit is passed on, so the reader sees the body is too large.
    this.push(chunk);
    if (this.overLimit) this.inflater.destroy();
  }
}
