import { createGunzip, createInflate } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import { DomainError, MAX_BODY_BYTES } from '@app/domain';
import { CappedInflate } from './capped-inflate';

const REQUEST_ENCODINGS = ['gzip', 'deflate'] as const;

/**
 * `Content-Encoding: gzip | deflate` on request bodies (CONTRACT "OTLP"; OTel exporters and
 * Collectors compress by default). Registered before the routes exist, since the plugin
 * hooks into each route as it is added. The body limit and the JSON parser then apply to
 * the inflated bytes.
 *
 * Responses are left alone (`globalCompression: false`): ingestion answers are a few bytes,
 * and compressing reads would change every client's framing for a saving a proxy in front
 * can make where it is wanted.
 */
export async function registerRequestDecompression(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyCompress, {
    globalCompression: false,
    globalDecompression: true,
    requestEncodings: [...REQUEST_ENCODINGS, 'identity'],
    zlib: {
      createGunzip: () => new CappedInflate(createGunzip(), MAX_BODY_BYTES),
      createInflate: () => new CappedInflate(createInflate(), MAX_BODY_BYTES),
    },
    onUnsupportedRequestEncoding: (encoding: string) =>
      new DomainError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Encoding ${encoding} is not supported: send the body as is, or with ${REQUEST_ENCODINGS.join(' or ')}`,
      ),
    // The plugin copies this error's own enumerable fields onto the zlib error it reports,
    // and a constructed error's message is not one of them (nor is a DomainError's status).
    onInvalidRequestPayload: (encoding: string, _req: unknown, err: Error) =>
      Object.assign(new Error(), { statusCode: 400, message: `body is not valid ${encoding} data: ${err.message}` }),
  });
}
