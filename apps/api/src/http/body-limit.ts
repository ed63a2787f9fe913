import { DomainError } from '@app/domain';

/**
 * 413 for a body over an endpoint's own limit, below the server's ceiling (MAX_BODY_BYTES)
 * that Fastify enforces for every route; `raw` is the body after any Content-Encoding.
 */
export function assertBodyWithin(raw: Buffer | undefined, limit: number): void {
  if (raw && raw.byteLength > limit) throw new DomainError('PAYLOAD_TOO_LARGE', `body is ${raw.byteLength} bytes; at most ${limit} are allowed`);
}
