import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { repoRoot } from '@app/config/repo-root';
import { SECURITY_HEADERS, cacheControlFor, isClientRoute } from './dashboard-headers';

/** Where `npm run build` puts the dashboard (vite's outDir in apps/web/vite.config.ts). */
export const DASHBOARD_DIR = resolve(repoRoot(), 'dist', 'web');

/**
 * Serves the built dashboard at `/` (issue 15). Every file found at start-up gets its own
 * route (`wildcard: false`), so Nest's routes and its JSON 404 for unknown `/api/...` paths stay
 * as they were; one GET catch-all answers the client-side routes with the index and hands
 * everything else (API paths, missing files) to the same 404 handler as before.
 */
export async function serveDashboard(fastify: FastifyInstance, logger: Logger, root = DASHBOARD_DIR): Promise<void> {
  if (!existsSync(resolve(root, 'index.html'))) {
    logger.warn({ root }, 'dashboard not built (no index.html): `npm run build` builds it; the API runs without it');
    return;
  }
  await fastify.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    // Vite writes no dotfiles; anything else stays hidden.
    dotfiles: 'deny',
    cacheControl: false,
    setHeaders: (res, path) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) void res.header(name, value);
      void res.header('cache-control', cacheControlFor(relative(root, path)));
    },
  });
  fastify.get('/*', (req, reply) => {
    if (!isClientRoute(req.url)) return reply.callNotFound();
    // setHeaders above adds the security headers and the index's no-cache.
    return reply.sendFile('index.html');
  });
}
