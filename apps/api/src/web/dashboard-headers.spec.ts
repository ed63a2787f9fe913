import { IMMUTABLE, REVALIDATE, cacheControlFor, isClientRoute } from './dashboard-headers';

describe(isClientRoute.name, () => {
  it.each(['/', '/login', '/p/0b7c/traces', '/p/0b7c/traces/abc?tab=scores', '/settings/keys'])('answers %s with the index', (url) => {
    expect(isClientRoute(url)).toBe(true);
  });
  it.each(['/api', '/api/v1/nothing', '/api/trpc/x/y', '/metrics', '/metrics/x', '/assets/missing.js', '/favicon.ico'])(
    'leaves %s to the 404 handler',
    (url) => {
      expect(isClientRoute(url)).toBe(false);
    },
  );
  it('treats a route that only starts like an API path as a client route', () => {
    expect(isClientRoute('/apis')).toBe(true);
  });
});

describe(cacheControlFor.name, () => {
  it('caches hashed assets for good and revalidates everything else', () => {
    expect(cacheControlFor('assets/index-a1b2c3.js')).toBe(IMMUTABLE);
    expect(cacheControlFor('index.html')).toBe(REVALIDATE);
  });
});
