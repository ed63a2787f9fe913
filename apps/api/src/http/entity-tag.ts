import { hash } from 'node:crypto';

/**
 * A strong entity tag (RFC 9110 8.8.3) of a representation: a hash of everything it is
 * made of, so two representations share a tag only when they are the same bytes.
 */
export const strongEntityTag = (representation: unknown): string => `"${hash('sha256', JSON.stringify(representation), 'base64url')}"`;

const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * Whether an `If-None-Match` header names the current representation (RFC 9110 13.1.2): `*`
 * names any, otherwise one of the listed tags must equal `etag` by weak comparison (a `W/`
 * on either side is ignored). A malformed member matches nothing.
 */
export function ifNoneMatchNames(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const [tag] of header.matchAll(ENTITY_TAG)) if (tag.replace(/^W\//, '') === opaque) return true;
  return false;
}

/** A client may keep a resolved version, but must ask again each time it uses it: a 304 makes that cheap. */
export const REVALIDATE_ON_USE = 'private, max-age=0, must-revalidate';
