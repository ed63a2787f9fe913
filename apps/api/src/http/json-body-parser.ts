import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError, MAX_JSON_DEPTH, jsonDepthExceeds, parseJsonSafely } from '@app/domain';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received (after any Content-Encoding was undone). */
    rawBody?: Buffer;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The one JSON parser of every route (BAD_INPUTS.md): refuses invalid UTF-8 instead of
 * silently replacing it, refuses nesting deeper than MAX_JSON_DEPTH before parsing, and
 * keeps prototype-poisoning protection. The raw bytes stay on the request, so ingestion
 * can store the client's bytes without serializing them again.
 */
export function registerJsonParser(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req: FastifyRequest, body: Buffer, done) => {
    req.rawBody = body;
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, parseJsonBytes(body));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

export function parseJsonBytes(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new DomainError('VALIDATION_ERROR', 'body is not valid UTF-8');
  }
  if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
    throw new DomainError('VALIDATION_ERROR', `body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return parseJsonSafely(text, 'error');
  } catch (err) {
    throw new DomainError('VALIDATION_ERROR', `body is not valid JSON: ${(err as Error).message}`);
  }
}
