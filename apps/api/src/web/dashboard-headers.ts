/**
 * Headers of the dashboard's files. The bundle loads nothing from another host, so its policy
 * allows only 'self': an injected script or a stolen-token beacon to elsewhere is refused by
 * the browser. Inline styles are not needed (React and uPlot set styles through the CSSOM).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/** Vite names every file under assets/ by its content hash, so it never changes: cache it for a year. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The index names the current hashes: always revalidated, so a deploy is seen on the next load. */
export const REVALIDATE = 'no-cache';

/** The cache policy of a file under the dashboard's root, by its path relative to the root. */
export function cacheControlFor(relativePath: string): string {
  return /^\/?assets\//.test(relativePath) ? IMMUTABLE : REVALIDATE;
}

/** Paths that belong to the API, never to the dashboard: they keep their JSON 404. */
const API_PATH = /^\/(api|metrics)(\/|$)/;

/**
 * Whether an unmatched GET is a client-side route of the dashboard (answered with the index),
 * rather than an API path or a missing file (answered 404). A last segment with an extension
 * names a file: a missing `/assets/x.js` must be a 404, not an HTML page parsed as script.
 */
export function isClientRoute(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  if (API_PATH.test(path)) return false;
  const last = path.slice(path.lastIndexOf('/') + 1);
  return !last.includes('.');
}
